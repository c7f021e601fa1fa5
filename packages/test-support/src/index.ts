export { BrokerInstance, REPO_ROOT, TEST_BROKER, brokerReady, useBroker, type Broker, type BrokerInstanceOptions } from "./broker.js";
export { ServiceProcess, freePort, type ServiceProcessOptions } from "./service-process.js";
export { uniqueTopic, waitFor } from "./wait.js";
