export { FakeConfig } from "./fake-config.js";
export { FakeToolRegistry } from "./fake-tool-registry.js";
export { MemoryBus } from "./memory-bus.js";
export { Shouter, shoutRevision } from "./shouter.js";
