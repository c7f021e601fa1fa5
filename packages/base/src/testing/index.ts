export { FakeConfig } from "./fake-config.js";
export { MemoryBus } from "./memory-bus.js";
