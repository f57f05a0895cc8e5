// `@sd/transport/storage-file`: stable storage in a file. Kept out of the main entry, which stays
// free of node:fs (browser-safe).
export { StorageCorruptError, StorageIoError, StorageOwnerError } from '../errors.js'
export {
  FILE_STORAGE_FORMAT,
  FILE_STORAGE_VERSION,
  type FileStorage,
  type FileStorageDocument,
  type OpenFileStorageOptions,
  openFileStorage,
  type StorageOwner,
} from './file-storage.js'
