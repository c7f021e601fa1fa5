/**
 * Each service's HTTP port (health, metrics, its routes): the one table. Every service's env.ts takes its
 * HTTP_PORT default from here and `npm run up` starts them on these; compose and the Kubernetes manifests
 * name the same numbers, which a unit test (test/unit/ports.test.ts) checks.
 */
export const ServicePorts = {
  config: 8701,
  "joke-service": 8702,
  "mcp-tool": 8703,
  "tool-registry": 8704,
  agent: 8705,
  "api-gateway": 8088,
  "mcp-server": 8706,
} as const;
export type ServiceWithPort = keyof typeof ServicePorts;
