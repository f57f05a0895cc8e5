import { SdError } from '../errors.js'
import type { NodeId } from '../ids.js'

/**
 * The send queue towards a peer is full (too many messages or bytes not yet acknowledged).
 * Nothing was queued: wait for acknowledgements (or a `peer-unreachable` signal) and retry,
 * or raise `sendQueue.maxMessages` / `sendQueue.maxBytes`.
 */
export class BackpressureError extends SdError {
  readonly peer: NodeId
  readonly queuedMessages: number
  readonly queuedBytes: number
  constructor(peer: NodeId, queuedMessages: number, queuedBytes: number, limit: string) {
    super(
      'ERR_BACKPRESSURE',
      `send queue to ${JSON.stringify(peer)} is full (${queuedMessages} messages, ${queuedBytes} bytes; limit ${limit}): wait for acknowledgements before sending more, or raise the sendQueue limits`,
    )
    this.peer = peer
    this.queuedMessages = queuedMessages
    this.queuedBytes = queuedBytes
  }
}

/** A host:port entry of the address book or the bind address could not be used. */
export class AddressError extends SdError {
  constructor(message: string) {
    super('ERR_ADDRESS', message)
  }
}
