export type { JsonValue } from './json.js'
export { MemoryStorage } from './memory.js'
export { readStored, type StoredShape, storedShapes } from './read-stored.js'
export type { StableStorage, StorageBackend, StorageWrites } from './types.js'
