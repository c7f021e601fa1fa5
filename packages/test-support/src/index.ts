export { BrokerInstance, REPO_ROOT, brokerReady, useBroker, type Broker, type BrokerInstanceOptions } from "./broker.js";
export { uniqueTopic, waitFor } from "./wait.js";
