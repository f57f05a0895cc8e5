import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { PeerAddress } from './address.js'
import type { Codec } from './codec.js'
import type { ResolvedRetransmit, RetransmitOptions } from './rtt.js'

/** Everything `createUdpTransport` accepts. Only `id` is required. */
export interface UdpTransportOptions<Msg = unknown> {
  /** This node's id: a finite number or a string of at most 255 UTF-8 bytes. */
  id: NodeId
  /** Where to listen. Default 127.0.0.1, port 0 (any free port; read it from `transport.address`). */
  bind?: { host?: string; port?: number }
  /**
   * The address book: id -> 'host:port' | '[v6]:port' | { host, port }. Object keys are string ids;
   * use a Map or [id, address] pairs for numeric ids. Change it later with `setPeer` / `removePeer`.
   */
  peers?:
    | Record<string, PeerAddress>
    | ReadonlyMap<NodeId, PeerAddress>
    | Iterable<readonly [NodeId, PeerAddress]>
  /**
   * Admission: whether a datagram from a sender id not in the address book may add that id, at the
   * datagram's source address ('host:port', '[v6]:port'), as `setPeer` would; a `peer-learned`
   * signal says so. Asked once per unknown id (a refused one is asked again on its next datagram).
   * Absent (the default): unknown senders are dropped (`unknown-sender`). Without `key` anyone
   * can claim any id; with one, only holders of the key get this far. An id already in the book is
   * never moved by admission (no hijack): its datagrams from elsewhere are answered at the
   * address the book has. Admit everyone the key allows with `admit: () => true`.
   */
  admit?: (id: NodeId, address: string) => boolean
  /**
   * Most peers admission keeps in the address book at once (`removePeer` frees room); beyond it
   * unknown senders are dropped, so a flood of invented ids cannot grow memory. Default 1024.
   */
  maxLearnedPeers?: number
  /** Reliable FIFO link (default true). false: datagrams may be lost, duplicated (without a key) or reordered. */
  reliable?: boolean
  /** Shared secret (>= 16 bytes): every datagram carries a MAC (`mac`) and replays are refused. */
  key?: string | Uint8Array
  /**
   * The MAC of every datagram when `key` is set; every member of a group must use the same one.
   * 'blake2s' (default): keyed BLAKE2s-256 (RFC 7693) in JavaScript, about half the CPU of
   * HMAC-SHA256 per datagram (a key longer than 32 bytes is hashed to 32 with BLAKE2s-256 first).
   * 'hmac-sha256': HMAC-SHA256 (RFC 2104), what sd used before; see `hmacEngine` (given alone,
   * it selects 'hmac-sha256').
   */
  mac?: 'blake2s' | 'hmac-sha256'
  /**
   * Who computes HMAC-SHA256 (`mac: 'hmac-sha256'` only). 'js' (default): an allocation-free
   * SHA-256 in JavaScript with the key's pad states precomputed, about twice as fast as node:crypto
   * on datagram-sized inputs and tested against it. 'node-crypto': node:crypto's createHmac. Both
   * produce the same MACs, so a group may mix them.
   */
  hmacEngine?: 'js' | 'node-crypto'
  /** How messages become bytes. Default `jsonCodec`. */
  codec?: Codec<Msg>
  /** Largest datagram sent or accepted, header and MAC included. Default 1200 (fits the IPv6 minimum MTU). */
  maxDatagramBytes?: number
  /** Largest encoded message; bigger ones are fragmented up to this, beyond it `send` throws. Default 1 MiB. */
  maxMessageBytes?: number
  retransmit?: RetransmitOptions
  /** Unacknowledged data datagrams in flight per peer before waiting. Default 256. */
  sendWindow?: number
  /**
   * Early (out-of-order) datagrams buffered per peer. Default 1024. A sender never lets its flight
   * span more sequence numbers than its own receiveWindow: give every node of a group the same one.
   */
  receiveWindow?: number
  /** Unacknowledged messages per peer; beyond either limit `send` throws BackpressureError. */
  sendQueue?: { maxMessages?: number; maxBytes?: number }
  /**
   * Unreliable mode: partial fragmented messages kept per peer, and how long. Defaults 8 and 5000 ms.
   * Each partial is charged at most 2 x maxMessageBytes (payload plus a fixed cost per fragment).
   */
  reassembly?: { maxPartial?: number; timeoutMs?: number }
  /** Socket receive buffer in bytes (the OS may cap it). Default 1 MiB. */
  socketBufferBytes?: number
  /**
   * How long an acknowledgement may wait for data to the same peer to ride on, ms (QUIC's
   * max_ack_delay). Default 5: a request's answer usually leaves within it and carries the ack,
   * so request/response traffic sends fewer standalone acks. The sender's probe timeout grows by
   * as much, so a delayed ack is never taken for a loss.
   * 0: acks leave at the end of the input batch, as before. Out-of-order input, gaps, handshakes
   * and every ACK_EVERY data datagrams are acknowledged at once whatever it says. The sender
   * assumes its peer delays as much as it does itself (the wire does not carry it): give every
   * node of a group the same value.
   */
  maxAckDelayMs?: number
  /**
   * Reliable mode: messages sent to one peer during one turn of the event loop (a handler's
   * answers, then whatever its promise continuations send) leave together once the turn's
   * microtasks have run (`setImmediate`), as one bundle when they fit, carrying the
   * acknowledgement owed to that peer: one datagram, one system call and one wake-up of the peer
   * instead of one each. Default false: each message leaves when `send` is called, which saves the
   * few microseconds an answer waits for the end of the turn. The unreliable mode ignores it.
   */
  coalesce?: boolean
}

export interface ResolvedOptions {
  reliable: boolean
  maxDatagramBytes: number
  maxMessageBytes: number
  retransmit: ResolvedRetransmit
  sendWindow: number
  receiveWindow: number
  maxQueuedMessages: number
  maxQueuedBytes: number
  maxPartial: number
  reassemblyTimeoutMs: number
  socketBufferBytes: number
  maxAckDelayMs: number
  maxLearnedPeers: number
  coalesce: boolean
}

/** A number option: its value or default, checked against [min, max] (and integrality for `int`). */
function ranged(integer: boolean) {
  return (value: number | undefined, fallback: number, min: number, max: number, name: string) => {
    const v = value ?? fallback
    if (!(v >= min && v <= max) || (integer && !Number.isInteger(v))) {
      throw new InvalidArgumentError(
        `${name} must be ${integer ? 'an integer ' : ''}in ${min}..${max}, got ${v}`,
      )
    }
    return v
  }
}
const int = ranged(true)
const num = ranged(false)

export function resolveOptions(options: UdpTransportOptions<never>): ResolvedOptions {
  const r = options.retransmit ?? {}
  const minRtoMs = num(r.minRtoMs, 10, 1, 60_000, 'retransmit.minRtoMs')
  const maxRtoMs = num(r.maxRtoMs, 2000, minRtoMs, 600_000, 'retransmit.maxRtoMs')
  const retransmit: ResolvedRetransmit = {
    minRtoMs,
    maxRtoMs,
    initialRtoMs: num(r.initialRtoMs, 100, minRtoMs, maxRtoMs, 'retransmit.initialRtoMs'),
    maxAttempts: int(r.maxAttempts, 10, 1, 1000, 'retransmit.maxAttempts'),
    jitter: num(r.jitter, 0.2, 0, 0.9, 'retransmit.jitter'),
  }
  const maxDatagramBytes = int(options.maxDatagramBytes, 1200, 1200, 65_507, 'maxDatagramBytes')
  return {
    reliable: options.reliable ?? true,
    maxDatagramBytes,
    maxMessageBytes: int(options.maxMessageBytes, 1 << 20, 1, 256 << 20, 'maxMessageBytes'),
    retransmit,
    sendWindow: int(options.sendWindow, 256, 1, 65_536, 'sendWindow'),
    receiveWindow: int(options.receiveWindow, 1024, 1, 65_536, 'receiveWindow'),
    maxQueuedMessages: int(
      options.sendQueue?.maxMessages,
      4096,
      1,
      1 << 24,
      'sendQueue.maxMessages',
    ),
    maxQueuedBytes: int(options.sendQueue?.maxBytes, 16 << 20, 1, 2 ** 40, 'sendQueue.maxBytes'),
    maxPartial: int(options.reassembly?.maxPartial, 8, 1, 4096, 'reassembly.maxPartial'),
    reassemblyTimeoutMs: num(
      options.reassembly?.timeoutMs,
      5000,
      1,
      3_600_000,
      'reassembly.timeoutMs',
    ),
    socketBufferBytes: int(options.socketBufferBytes, 1 << 20, 0, 1 << 30, 'socketBufferBytes'),
    maxAckDelayMs: num(options.maxAckDelayMs, 5, 0, 1000, 'maxAckDelayMs'),
    maxLearnedPeers: int(options.maxLearnedPeers, 1024, 0, 1 << 20, 'maxLearnedPeers'),
    // Unreliable datagrams leave at once: the bundle format is for data of the reliable link.
    coalesce: options.coalesce === true && (options.reliable ?? true),
  }
}
