export type { JsonValue } from './json.js'
export { MemoryStorage } from './memory.js'
export type { StableStorage, StorageBackend, StorageWrites } from './types.js'
