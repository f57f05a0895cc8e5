// Node-only (the @sd/timesync/udp entry): the declaration build of this package leaves Node's
// types out unless a file asks for them.
/// <reference types="node" />
/**
 * The NTP server on UDP (node:dgram): `createNtpServer` answers client requests with the local
 * clock plus an offset, through `answerNtpRequest` (server.ts). No datagram can end the process:
 * each is answered, refused (`rejected`), or ends with a reply that could not be made or sent
 * (`unsent`: a request from source port 0, where no reply can go, is one); nothing it carries
 * reaches a throw outside the handler, and the socket's error events are per datagram.
 */
import { createSocket, type RemoteInfo } from 'node:dgram'
import { isIP } from 'node:net'
import { InvalidArgumentError, NtpRejectedError } from './errors.js'
import { answerNtpRequest, type NtpServerOptions, resolveServerOptions } from './server.js'
import { systemClock, type UnixClock } from './system-clock.js'
import { bind, checkPort, DEFAULT_SERVER_PORT, resolveHost } from './udp-common.js'

/** How `createNtpServer` serves. */
export interface CreateNtpServerOptions extends NtpServerOptions {
  /** The address to bind: an IPv4 or IPv6 address, or a name (default 127.0.0.1). */
  host?: string
  /** The port to bind (default 11123; 0 picks a free one, see the handle's `port`). */
  port?: number
  /** Added to the clock for every reply, ms (default 0): a server that is wrong on purpose. */
  offsetMs?: number
  /** The server's clock, Unix ms (default: the system clock, see `systemClock`). */
  clock?: UnixClock
  /** Told of every request left unanswered, with its sender. */
  onRejected?: (error: NtpRejectedError, from: { address: string; port: number }) => void
  /** Told of every reply that could not be made or sent, with the request's sender. */
  onUnsent?: (error: unknown, from: { address: string; port: number }) => void
}

/** A running server. */
export interface NtpServerHandle {
  /** The address and port it is bound to. */
  readonly address: string
  readonly port: number
  /** Replies sent, and requests refused, so far. */
  readonly answered: number
  readonly rejected: number
  /**
   * Valid requests whose reply could not be sent (to source port 0, an unreachable address) or
   * made: dropped and counted. A reply whose send fails after leaving the handler moves from
   * `answered` to here.
   */
  readonly unsent: number
  /** Stops serving and releases the port. */
  close(): Promise<void>
}

/** The counters a datagram handler keeps. */
export interface NtpServerCounts {
  answered: number
  rejected: number
  unsent: number
}

/** The part of a dgram socket that replies go through. */
export interface ReplySocket {
  send(
    reply: Uint8Array,
    port: number,
    address: string,
    callback: (error: Error | null) => void,
  ): void
}

/**
 * The 'message' listener of the server: answers one datagram through `socket`, counting it in
 * `counts`; never throws (see the module comment). `answer` builds the reply for a request and
 * throws NtpRejectedError for one to leave unanswered.
 */
export function createDatagramHandler(
  socket: ReplySocket,
  answer: (request: Uint8Array) => Uint8Array,
  counts: NtpServerCounts,
  hooks: Pick<CreateNtpServerOptions, 'onRejected' | 'onUnsent'> = {},
): (message: Buffer, from: RemoteInfo) => void {
  const unsent = (error: unknown, from: RemoteInfo) => {
    counts.unsent++
    hooks.onUnsent?.(error, { address: from.address, port: from.port })
  }
  return (message, from) => {
    let reply: Uint8Array
    try {
      reply = answer(message)
    } catch (error) {
      if (!(error instanceof NtpRejectedError)) return unsent(error, from)
      counts.rejected++
      hooks.onRejected?.(error, { address: from.address, port: from.port })
      return
    }
    try {
      // Node throws at once for what it can check itself (source port 0 is refused as a
      // destination), and reports the kernel's refusals to the callback.
      socket.send(reply, from.port, from.address, (error) => {
        if (error === null || error === undefined) return
        counts.answered--
        unsent(error, from)
      })
    } catch (error) {
      return unsent(error, from)
    }
    counts.answered++
  }
}

/**
 * Serves NTP on UDP: answers every valid client request with the local clock plus `offsetMs`
 * (see `answerNtpRequest`), and leaves bad ones unanswered. Rejects with NtpNetworkError when the
 * address cannot be bound (port 123 needs root), InvalidArgumentError for bad options.
 */
export async function createNtpServer(
  options: CreateNtpServerOptions = {},
): Promise<NtpServerHandle> {
  const resolved = resolveServerOptions(options)
  const port = checkPort(options.port ?? DEFAULT_SERVER_PORT, true)
  const offsetMs = options.offsetMs ?? 0
  if (!Number.isFinite(offsetMs))
    throw new InvalidArgumentError(`offsetMs must be a finite number, got ${offsetMs}`)
  const clock = options.clock ?? systemClock()
  const host = options.host ?? '127.0.0.1'
  const address = await resolveHost(host)
  const socket = createSocket({ type: isIP(address) === 6 ? 'udp6' : 'udp4' })
  const counts: NtpServerCounts = { answered: 0, rejected: 0, unsent: 0 }
  const answer = (request: Uint8Array) => {
    const receiveMs = clock() + offsetMs
    const transmitMs = clock() + offsetMs
    if (!Number.isFinite(receiveMs) || !Number.isFinite(transmitMs))
      throw new InvalidArgumentError(`the server's clock read ${receiveMs}, not a time`)
    return answerNtpRequest(request, receiveMs, transmitMs, resolved)
  }
  socket.on('message', createDatagramHandler(socket, answer, counts, options))
  // Errors after binding are per datagram on UDP (ICMP feedback): nothing to stop for.
  socket.on('error', () => {})
  try {
    await bind(socket, port, address, host)
  } catch (error) {
    socket.close()
    throw error
  }
  const bound = socket.address()
  let closed: Promise<void> | undefined
  return {
    address: bound.address,
    port: bound.port,
    get answered() {
      return counts.answered
    },
    get rejected() {
      return counts.rejected
    },
    get unsent() {
      return counts.unsent
    },
    close() {
      closed ??= new Promise<void>((resolve) => socket.close(() => resolve()))
      return closed
    },
  }
}
