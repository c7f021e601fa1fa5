export { BrokerInstance, REPO_ROOT, TEST_BROKER, brokerReady, brokerServiceUrl, useBroker, type Broker, type BrokerInstanceOptions } from "./broker.js";
export { ScriptedLlm, type ChatRequest, type ScriptedTurn } from "./scripted-llm.js";
export { ServiceProcess, freePort, type ServiceProcessOptions } from "./service-process.js";
export { uniqueTopic, waitFor } from "./wait.js";
export { EverythingServer } from "./everything-server.js";
export { brokerMode, type BrokerMode } from "./broker-mode.js";
export { pythonPeer } from "./python-peer.js";
export { PeerProcess } from "./peer-process.js";
export { claimTrustGraphTenant } from "./trustgraph-tenant.js";
