import { TopicLayout, tenantFromEnv } from "@toolmesh/schema";

/**
 * The topic layout of the system a test talks to: the test file's own tenant (TOOLMESH_TENANT, set per
 * file by tenant-setup.ts and handed to every service it starts), read when called. Services get theirs
 * from their validated environment (ServiceRuntime.topics); tests build the same one here.
 */
export function testTopics(): TopicLayout {
  return new TopicLayout({ tenant: tenantFromEnv(process.env.TOOLMESH_TENANT) });
}

export const requestTopic = (name: string): string => testTopics().request(name);
export const responseTopic = (name: string): string => testTopics().response(name);
export const notifyTopic = (name: string): string => testTopics().notify(name);

/** A service's request and response topics in the test's tenant, as `RequestClient.create` and `serve` take them. */
export const serviceTopics = (name: string): { requestTopic: string; responseTopic: string } => ({
  requestTopic: requestTopic(name),
  responseTopic: responseTopic(name),
});
