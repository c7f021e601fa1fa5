export {
  BrokerInstance,
  REPO_ROOT,
  TEST_BROKER,
  brokerEnv,
  brokerReady,
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
export { ServiceProcess, freePort, type ServiceProcessOptions } from "./service-process.js";
export { uniqueTopic, waitFor } from "./wait.js";
export { EverythingServer } from "./everything-server.js";
export { brokerMode, type BrokerMode } from "./broker-mode.js";
export { pythonPeer } from "./python-peer.js";
export { topicClients, totalClients, type TopicClients } from "./topic-stats.js";
export { PythonMcpServer, type PythonMcpServerOptions, type PythonMcpServerStats } from "./python-mcp-server.js";
