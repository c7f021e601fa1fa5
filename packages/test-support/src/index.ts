export {
  BrokerInstance,
  REPO_ROOT,
  TEST_BROKER,
  brokerEnv,
  brokerReady,
  brokerServiceUrl,
  ensureTenant,
  clientOptions,
  pairedUrls,
  testTransport,
  useBroker,
  type Broker,
  type BrokerInstanceOptions,
  type TransportKind,
} from "./broker.js";
export { ScriptedLlm, type ChatRequest, type ScriptedReply, type ScriptedTurn } from "./scripted-llm.js";
export { ProxyInstance, type ProxyInstanceOptions } from "./proxy.js";
export { ServiceProcess, freePort, type ServiceProcessOptions } from "./service-process.js";
export { uniqueTopic, waitFor } from "./wait.js";
export { EverythingServer } from "./everything-server.js";
export { brokerMode, type BrokerMode } from "./broker-mode.js";
export { GoMcpServer } from "./go-mcp-server.js";
export { goPeer } from "./go-peer.js";
export { PgBouncer, type PgBouncerOptions, type PgBouncerPool, type PgBouncerRelease } from "./pgbouncer.js";
export { DEBIAN_POSTGRES_MAJOR, startDebianPostgres, startDebianStandby, type DebianPostgresServer } from "./debian-postgres.js";
export { pythonPeer } from "./python-peer.js";
export { topicClients, totalClients, type TopicClients } from "./topic-stats.js";
export { PythonMcpServer, type PythonMcpServerOptions, type PythonMcpServerStats } from "./python-mcp-server.js";
export {
  apacheClient,
  type ApacheClientMode,
  type ApacheClientOptions,
  type ApacheClientResult,
  type ApacheMessage,
} from "./apache-client.js";
export { runPythonScript, type PythonRun } from "./python-run.js";
export {
  tracedPythonCalls,
  tracedPythonService,
  type TracedCall,
  type TracedCallResult,
  type TracedServiceRequest,
  type TracedServiceResult,
} from "./traced-caller.js";
export {
  trustGraphToolCalls,
  trustGraphToolService,
  type TrustGraphCall,
  type TrustGraphCallResults,
  type TrustGraphPulsarAuth,
} from "./trustgraph-peer.js";
export { startOAuth2Issuer, type OAuth2Issuer, type OAuth2IssuerOptions, type OAuth2TokenRequest } from "./oauth2-issuer.js";
export { PRIVATE_BROKER_PORTS, RESERVED_BROKER_PORTS, type PrivateBrokerTest, privateBroker } from "./private-broker-ports.js";
export { foreignToken, startSecuredBroker, type SecuredBroker, type SecuredBrokerPorts } from "./secured-broker.js";
export { PeerProcess } from "./peer-process.js";
export { claimTrustGraphTenant } from "./trustgraph-tenant.js";
export {
  TEST_DATABASE_URL_VAR,
  TestDatabases,
  postgresRoutes,
  TestPostgres,
  type DatabaseRoute,
  createTestDatabase,
  testServerUrl,
  type TestDatabase,
  type TestPostgresOptions,
} from "./postgres.js";
export { TEST_POSTGRES_VAR, choosePostgres, type PostgresChoice, type PostgresMode } from "./postgres-mode.js";
export { startTlsPostgres, type TlsPostgresServer } from "./postgres-tls.js";
export { startEmbeddedPostgres, type EmbeddedPostgresServer, type EmbeddedPostgresOptions } from "./postgres-servers.js";
export { probeDockerEngine, type DockerEngine } from "./docker-engine.js";
export { notifyTopic, requestTopic, responseTopic, serviceTopics, testTopics } from "./topics.js";
export { OtlpReceiver, type ReceivedSpan, type AttributeValue } from "./otlp-receiver.js";
