import type { NodeId } from './ids.js'

/**
 * The mark every copy of this package puts on its errors. `Symbol.for` keys are shared by all
 * module copies (CJS and ESM builds, two installed versions), where `instanceof` is not.
 */
const SD_ERROR_MARK = Symbol.for('@sd/transport.error')

/** Base class of every error sd throws: `code` is stable and machine-readable. */
export class SdError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
    Object.defineProperty(this, SD_ERROR_MARK, { value: true })
  }
}

export class UnknownNodeError extends SdError {
  readonly node: NodeId
  constructor(node: NodeId, where: string) {
    super(
      'ERR_UNKNOWN_NODE',
      `unknown node ${JSON.stringify(node)} in ${where}: add it to the network (or address book) before sending to it`,
    )
    this.node = node
  }
}

export class TransportClosedError extends SdError {
  readonly node: NodeId
  constructor(node: NodeId, operation: string) {
    super(
      'ERR_TRANSPORT_CLOSED',
      `transport of node ${JSON.stringify(node)} is closed: cannot ${operation}; create a new transport`,
    )
    this.node = node
  }
}

/** A setting or argument outside its domain (negative delay, probability outside [0, 1]...). */
export class InvalidArgumentError extends SdError {
  constructor(message: string) {
    super('ERR_INVALID_ARGUMENT', message)
  }
}

/** What a protocol was doing when it threw. */
export type ProtocolPhase = 'start' | 'message' | 'timer' | 'request' | 'signal'

/** A protocol callback threw. The runtime stops that protocol instance and reports this. */
export class ProtocolError extends SdError {
  readonly node: NodeId
  readonly phase: ProtocolPhase
  readonly detail: string
  constructor(node: NodeId, phase: ProtocolPhase, detail: string, cause: unknown) {
    super(
      'ERR_PROTOCOL',
      `protocol on node ${JSON.stringify(node)} threw while handling ${phase}${detail === phase ? '' : ` (${detail})`}: ${describe(cause)}`,
      { cause },
    )
    this.node = node
    this.phase = phase
    this.detail = detail
  }
}

/** A local request reached a protocol instance that was stopped (by `stop()`, a crash or an error). */
export class ProtocolStoppedError extends SdError {
  readonly node: NodeId
  constructor(node: NodeId) {
    super(
      'ERR_PROTOCOL_STOPPED',
      `protocol on node ${JSON.stringify(node)} is stopped: the request was not handled; start a new instance`,
    )
    this.node = node
  }
}

/** A simulated run failed; `seed` replays it exactly. */
export class SimulationError extends SdError {
  readonly seed: number | string
  readonly time: number
  readonly node: NodeId | undefined
  constructor(
    message: string,
    seed: number | string,
    time: number,
    node?: NodeId,
    cause?: unknown,
  ) {
    super('ERR_SIMULATION', `${message} (seed ${JSON.stringify(seed)}, virtual time ${time} ms)`, {
      cause,
    })
    this.seed = seed
    this.time = time
    this.node = node
  }
}

/** A message could not be encoded or decoded by a codec. */
export class CodecError extends SdError {
  constructor(message: string, cause?: unknown) {
    super('ERR_CODEC', message, { cause })
  }
}

/** A message is larger than the transport can carry. */
export class MessageTooLargeError extends SdError {
  readonly size: number
  readonly limit: number
  constructor(size: number, limit: number) {
    super(
      'ERR_MESSAGE_TOO_LARGE',
      `message of ${size} bytes exceeds the limit of ${limit} bytes: send smaller messages or raise maxMessageBytes`,
    )
    this.size = size
    this.limit = limit
  }
}

/** The reliable link gave up on a peer after its retries ran out. */
export class PeerUnreachableError extends SdError {
  readonly peer: NodeId
  constructor(peer: NodeId, attempts: number) {
    super(
      'ERR_PEER_UNREACHABLE',
      `peer ${JSON.stringify(peer)} did not acknowledge after ${attempts} attempts`,
    )
    this.peer = peer
  }
}

/** A value given to `ctx.storage.set` that JSON cannot represent faithfully (the store is JSON). */
export class StorageValueError extends SdError {
  readonly key: string
  constructor(key: string, reason: string) {
    super(
      'ERR_STORAGE_VALUE',
      `storage key ${JSON.stringify(key)}: ${reason}; stable storage holds JSON values only (null, booleans, finite numbers, strings, arrays, plain objects)`,
    )
    this.key = key
  }
}

/** A store's content cannot be read back as written: never treated as empty, so nothing is silently forgotten. */
export class StorageCorruptError extends SdError {
  readonly path: string
  constructor(path: string, reason: string, cause?: unknown) {
    super(
      'ERR_STORAGE_CORRUPT',
      `stable storage ${JSON.stringify(path)} is corrupt: ${reason}; restore it from a backup or remove it deliberately (the node then starts with empty storage)`,
      { cause },
    )
    this.path = path
  }
}

/** The operating system refused to read or write a store (permissions, missing directory, full disk). */
export class StorageIoError extends SdError {
  readonly path: string
  readonly operation: 'read' | 'write'
  constructor(path: string, operation: 'read' | 'write', cause: unknown) {
    super(
      'ERR_STORAGE_IO',
      `cannot ${operation} stable storage ${JSON.stringify(path)}: ${describe(cause)}`,
      { cause },
    )
    this.path = path
    this.operation = operation
  }
}

/**
 * A protocol found a value of the wrong shape in its stable storage (`"term": "1"` where a number
 * belongs): refused, never read as a default, since a default would let the node vote or grant
 * twice.
 */
export class StoredStateError extends SdError {
  readonly key: string
  readonly expected: string
  constructor(key: string, expected: string, value: unknown) {
    super(
      'ERR_STORED_STATE',
      `stored state ${JSON.stringify(key)} should be ${expected}, found ${preview(value)}: the node's state file is damaged or was written by something else; restore it, or remove it deliberately (the node then starts with empty state)`,
    )
    this.key = key
    this.expected = expected
  }
}

/** A store belongs to another node (or cluster) than the one opening it. */
export class StorageOwnerError extends SdError {
  readonly path: string
  constructor(path: string, expected: string, found: string) {
    super(
      'ERR_STORAGE_OWNER',
      `stable storage ${JSON.stringify(path)} belongs to ${found}, not to ${expected}: each node needs its own file`,
    )
    this.path = path
  }
}

/** Wiring between the children of a composed protocol went deeper than its limit: a cycle of events and requests. */
export class WiringDepthError extends SdError {
  /** The children the wiring went through, first to last. */
  readonly chain: readonly string[]
  constructor(chain: readonly string[], limit: number) {
    super(
      'ERR_WIRING_DEPTH',
      `wiring between composed protocols went deeper than ${limit} (${chain.join(' -> ')}): an event turned into a request keeps causing itself; break the cycle in a map function or raise maxWiringDepth`,
    )
    this.chain = [...chain]
  }
}

/** The error class behind each stable code of this entry (the UDP adapter adds its own codes). */
export interface SdErrorsByCode {
  ERR_UNKNOWN_NODE: UnknownNodeError
  ERR_TRANSPORT_CLOSED: TransportClosedError
  ERR_INVALID_ARGUMENT: InvalidArgumentError
  ERR_PROTOCOL: ProtocolError
  ERR_PROTOCOL_STOPPED: ProtocolStoppedError
  ERR_SIMULATION: SimulationError
  ERR_CODEC: CodecError
  ERR_MESSAGE_TOO_LARGE: MessageTooLargeError
  ERR_PEER_UNREACHABLE: PeerUnreachableError
  ERR_STORAGE_VALUE: StorageValueError
  ERR_STORAGE_CORRUPT: StorageCorruptError
  ERR_STORAGE_IO: StorageIoError
  ERR_WIRING_DEPTH: WiringDepthError
  ERR_STORED_STATE: StoredStateError
  ERR_STORAGE_OWNER: StorageOwnerError
}

export type SdErrorCode = keyof SdErrorsByCode

/**
 * Whether `error` was thrown by sd (any copy of this package: `instanceof` fails when the CJS and
 * the ESM build are both loaded, or two versions are), and, given `code`, whether it has that code.
 */
export function isSdError<C extends SdErrorCode>(
  error: unknown,
  code: C,
): error is SdErrorsByCode[C]
export function isSdError(error: unknown, code?: string): error is SdError
export function isSdError(error: unknown, code?: string): error is SdError {
  if (typeof error !== 'object' || error === null) return false
  if ((error as Record<symbol, unknown>)[SD_ERROR_MARK] !== true) return false
  const actual = (error as { code?: unknown }).code
  return typeof actual === 'string' && (code === undefined || actual === code)
}

function preview(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message
  return String(cause)
}
