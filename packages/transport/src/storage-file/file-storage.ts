import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { isSdError, StorageCorruptError, StorageIoError } from '../errors.js'
import { frozenJsonCopy, type JsonValue } from '../storage/json.js'
import { applyWrites } from '../storage/memory.js'
import type { StorageBackend, StorageWrites } from '../storage/types.js'

/** The file's first fields: what it is and which layout it has. */
export const FILE_STORAGE_FORMAT = 'sd-storage'
export const FILE_STORAGE_VERSION = 1

/** What the file holds: `{ "format": "sd-storage", "version": 1, "entries": { key: value } }`. */
export interface FileStorageDocument {
  format: typeof FILE_STORAGE_FORMAT
  version: typeof FILE_STORAGE_VERSION
  entries: Record<string, JsonValue>
}

/**
 * Stable storage in one JSON file per node. Every commit replaces the file atomically: the new
 * content goes to `<path>.tmp`, is fsynced, renamed over `<path>`, and the directory is fsynced,
 * so after a crash (even SIGKILL or a power cut, if the disk honours fsync) the file holds either
 * the previous commit or the new one, never a mix. One process at a time per file.
 */
export class FileStorage implements StorageBackend {
  readonly path: string
  private readonly entries: Map<string, JsonValue>

  /** Use `openFileStorage`. */
  constructor(path: string, entries: Map<string, JsonValue>) {
    this.path = path
    this.entries = entries
  }

  load(): ReadonlyMap<string, JsonValue> {
    return new Map(this.entries)
  }

  /** Durable when it returns; throws `StorageIoError` (and changes nothing) when it cannot write. */
  commit(writes: StorageWrites): void {
    const next = new Map(this.entries)
    applyWrites(next, writes)
    writeAtomically(this.path, serialize(next))
    applyWrites(this.entries, writes)
  }

  /** The committed entries, keys ascending. */
  snapshot(): Record<string, JsonValue> {
    return Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}

/**
 * Opens the store of one node at `path`, creating the file (empty) if there is none, so an
 * unwritable place is reported now rather than at the first write. Throws `StorageCorruptError`
 * when the file is not a store this version can read, `StorageIoError` when it cannot be read or
 * created. A corrupt file is never treated as empty.
 */
export function openFileStorage(path: string): FileStorage {
  const absolute = resolve(path)
  let text: string | undefined
  try {
    text = readFileSync(absolute, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new StorageIoError(absolute, 'read', error)
  }
  if (text === undefined) {
    const entries = new Map<string, JsonValue>()
    writeAtomically(absolute, serialize(entries))
    return new FileStorage(absolute, entries)
  }
  return new FileStorage(absolute, parse(absolute, text))
}

function serialize(entries: ReadonlyMap<string, JsonValue>): string {
  const document: FileStorageDocument = {
    format: FILE_STORAGE_FORMAT,
    version: FILE_STORAGE_VERSION,
    entries: Object.fromEntries(entries),
  }
  return `${JSON.stringify(document)}\n`
}

function parse(path: string, text: string): Map<string, JsonValue> {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new StorageCorruptError(path, 'not valid JSON', error)
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw new StorageCorruptError(path, 'not a JSON object')
  const { format, version, entries } = document as Record<string, unknown>
  if (format !== FILE_STORAGE_FORMAT)
    throw new StorageCorruptError(path, `format is ${JSON.stringify(format)}, not "sd-storage"`)
  if (version !== FILE_STORAGE_VERSION)
    throw new StorageCorruptError(
      path,
      `version ${JSON.stringify(version)} is not one this package reads (${FILE_STORAGE_VERSION})`,
    )
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries))
    throw new StorageCorruptError(path, '"entries" is not an object')
  const map = new Map<string, JsonValue>()
  for (const [key, value] of Object.entries(entries)) {
    try {
      map.set(key, frozenJsonCopy(value, key))
    } catch (error) {
      if (isSdError(error, 'ERR_STORAGE_VALUE'))
        throw new StorageCorruptError(path, error.message, error)
      throw error
    }
  }
  return map
}

/** Write to a temporary file, fsync, rename over the target, fsync the directory. */
function writeAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp`
  try {
    const fd = openSync(temporary, 'w')
    try {
      const bytes = Buffer.from(content, 'utf8')
      for (let written = 0; written < bytes.length; )
        written += writeSync(fd, bytes, written, bytes.length - written)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    throw new StorageIoError(path, 'write', error)
  }
  fsyncDirectory(dirname(path))
}

/** Makes the rename itself durable. Some platforms (Windows) cannot open a directory: skipped there. */
function fsyncDirectory(directory: string): void {
  let fd: number
  try {
    fd = openSync(directory, 'r')
  } catch (error) {
    if (process.platform === 'win32') return
    throw new StorageIoError(directory, 'write', error)
  }
  try {
    fsyncSync(fd)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR')
      throw new StorageIoError(directory, 'write', error)
  } finally {
    closeSync(fd)
  }
}
