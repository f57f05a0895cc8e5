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

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message
  return String(cause)
}
