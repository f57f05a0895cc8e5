import type { NodeId } from './ids.js'

/** Base class of every error sd throws: `code` is stable and machine-readable. */
export class SdError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
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

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message
  return String(cause)
}
