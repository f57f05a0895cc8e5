import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import {
  InvalidArgumentError,
  isSdError,
  StorageCorruptError,
  StorageIoError,
  StorageOwnerError,
} from '../errors.js'
import { isNodeId, type NodeId } from '../ids.js'
import { frozenJsonCopy, type JsonValue } from '../storage/json.js'
import { applyWrites } from '../storage/memory.js'
import type { StorageBackend, StorageWrites } from '../storage/types.js'

/** The file's first fields: what it is and which layout it has. */
export const FILE_STORAGE_FORMAT = 'sd-storage'
export const FILE_STORAGE_VERSION = 1

/** Whose state a file holds: the node, and the cluster if the caller names one. */
export interface StorageOwner {
  node: NodeId
  cluster?: string
}

export interface OpenFileStorageOptions {
  /**
   * Whose state this is. A new file records it; an existing file that records another owner is
   * refused with `StorageOwnerError` (two nodes given one file, a file copied from another node
   * or another cluster); one that records none (written before owners were recorded) is adopted.
   * Without it, any owner is accepted: pass it in real deployments.
   */
  owner?: StorageOwner
}

/**
 * What the file holds: `{ "format": "sd-storage", "version": 1, "owner": { "node": 2 },
 * "entries": { key: value } }` (`owner` absent in files of callers that named none).
 */
export interface FileStorageDocument {
  format: typeof FILE_STORAGE_FORMAT
  version: typeof FILE_STORAGE_VERSION
  owner?: StorageOwner
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
  /** Whose state the file holds (undefined when nobody was named). */
  readonly owner: StorageOwner | undefined
  private readonly entries: Map<string, JsonValue>

  /** Use `openFileStorage`. */
  constructor(path: string, entries: Map<string, JsonValue>, owner?: StorageOwner) {
    this.path = path
    this.entries = entries
    this.owner = owner
  }

  load(): ReadonlyMap<string, JsonValue> {
    return new Map(this.entries)
  }

  /** Durable when it returns; throws `StorageIoError` (and changes nothing) when it cannot write. */
  commit(writes: StorageWrites): void {
    const next = new Map(this.entries)
    applyWrites(next, writes)
    writeAtomically(this.path, serialize(next, this.owner))
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
 * when the file is not a store this version can read, `StorageOwnerError` when it records another
 * owner than `options.owner`, `StorageIoError` when it cannot be read or created. A corrupt file
 * is never treated as empty.
 */
export function openFileStorage(path: string, options: OpenFileStorageOptions = {}): FileStorage {
  const owner = checkOwner(options.owner)
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
    writeAtomically(absolute, serialize(entries, owner))
    return new FileStorage(absolute, entries, owner)
  }
  const document = parse(absolute, text)
  if (owner === undefined) return new FileStorage(absolute, document.entries, document.owner)
  if (document.owner !== undefined && !sameOwner(document.owner, owner))
    throw new StorageOwnerError(absolute, describeOwner(owner), describeOwner(document.owner))
  if (document.owner === undefined) writeAtomically(absolute, serialize(document.entries, owner))
  return new FileStorage(absolute, document.entries, owner)
}

function checkOwner(owner: StorageOwner | undefined): StorageOwner | undefined {
  if (owner === undefined) return undefined
  if (typeof owner !== 'object' || owner === null || !isNodeId(owner.node))
    throw new InvalidArgumentError('openFileStorage: owner.node must be a node id')
  if (owner.cluster !== undefined && typeof owner.cluster !== 'string')
    throw new InvalidArgumentError('openFileStorage: owner.cluster must be a string')
  return owner.cluster === undefined
    ? { node: owner.node }
    : { node: owner.node, cluster: owner.cluster }
}

const sameOwner = (a: StorageOwner, b: StorageOwner) => a.node === b.node && a.cluster === b.cluster

const describeOwner = (o: StorageOwner) =>
  `node ${JSON.stringify(o.node)}${o.cluster === undefined ? '' : ` of cluster ${JSON.stringify(o.cluster)}`}`

function serialize(
  entries: ReadonlyMap<string, JsonValue>,
  owner: StorageOwner | undefined,
): string {
  const document: FileStorageDocument = {
    format: FILE_STORAGE_FORMAT,
    version: FILE_STORAGE_VERSION,
    ...(owner === undefined ? {} : { owner }),
    entries: Object.fromEntries(entries),
  }
  return `${JSON.stringify(document)}\n`
}

function parse(
  path: string,
  text: string,
): { entries: Map<string, JsonValue>; owner: StorageOwner | undefined } {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new StorageCorruptError(path, 'not valid JSON', error)
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw new StorageCorruptError(path, 'not a JSON object')
  const { format, version, entries, owner } = document as Record<string, unknown>
  if (format !== FILE_STORAGE_FORMAT)
    throw new StorageCorruptError(path, `format is ${JSON.stringify(format)}, not "sd-storage"`)
  if (version !== FILE_STORAGE_VERSION)
    throw new StorageCorruptError(
      path,
      `version ${JSON.stringify(version)} is not one this package reads (${FILE_STORAGE_VERSION})`,
    )
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries))
    throw new StorageCorruptError(path, '"entries" is not an object')
  if (owner !== undefined) {
    const o = owner as Record<string, unknown> | null
    if (
      typeof o !== 'object' ||
      o === null ||
      !isNodeId(o.node) ||
      (o.cluster !== undefined && typeof o.cluster !== 'string')
    )
      throw new StorageCorruptError(path, '"owner" is not { node, cluster? }')
  }
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
  return { entries: map, owner: owner as StorageOwner | undefined }
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
