// Node-only (the @sd/timesync/udp entry): the declaration build of this package leaves Node's
// types out unless a file asks for them.
/// <reference types="node" />
/**
 * NTP over UDP (node:dgram): the only I/O of the NTP code. `queryNtp` is an SNTP-style client
 * that keeps the best of a few samples; `createNtpServer` answers client requests with the local
 * clock plus an offset. Everything else is the pure code of client.ts and server.ts.
 */
import { webcrypto } from 'node:crypto'
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { createNtpRequest, type NtpRequest, type NtpSample, sampleFromReply } from './client.js'
import {
  InvalidArgumentError,
  NtpAbortedError,
  NtpNetworkError,
  NtpRejectedError,
  NtpTimeoutError,
} from './errors.js'
import { ClockFilter } from './filter.js'
import { answerNtpRequest, type NtpServerOptions, resolveServerOptions } from './server.js'
import { systemClock, type UnixClock } from './system-clock.js'

/** The NTP port servers listen on (binding it needs root or CAP_NET_BIND_SERVICE). */
export const NTP_PORT = 123

/** The port `createNtpServer` binds by default: unprivileged, so any user can serve. */
export const DEFAULT_SERVER_PORT = 11_123

/** How `queryNtp` asks. */
export interface QueryNtpOptions {
  /** The server's port (default 123, where NTP servers listen). */
  port?: number
  /** Valid replies wanted, 1..64 (default 4); the least-delay one of the last 8 is the answer. */
  samples?: number
  /** Pause between a reply and the next request, ms (default 50: gentle on a real server). */
  intervalMs?: number
  /**
   * The whole query's time limit, ms (default 5000). When it passes with some samples, they are
   * the answer; with none, NtpTimeoutError.
   */
  timeoutMs?: number
  /** A request unanswered this long is taken as lost and sent again, ms (default timeoutMs / 5, 100..1000). */
  retryMs?: number
  /** Gives the query up: it rejects with NtpAbortedError. */
  signal?: AbortSignal
  /** Our clock, Unix ms (default: the system clock, see `systemClock`). */
  clock?: UnixClock
  /** Uniform numbers in [0, 1) for the random transmit fraction (default: crypto). */
  random?: () => number
}

/** What `queryNtp` measured: the best sample's figures, and every sample. */
export interface NtpQueryResult {
  /** The host as given, the address it resolved to, and the port. */
  host: string
  address: string
  port: number
  /** The server's clock minus ours, ms (positive: the server is ahead), from the best sample. */
  offsetMs: number
  /** The best sample's round trip, ms. */
  delayMs: number
  /** The true offset to the server's clock lies within offsetMs ± errorBoundMs. */
  errorBoundMs: number
  /** errorBoundMs plus the server's root delay / 2 and root dispersion, ms. */
  rootDistanceMs: number
  /** RMS of the other samples' offsets minus the best one's, ms. */
  jitterMs: number
  stratum: number
  /** The reference id as people read it. */
  reference: string
  /** The least-delay sample. */
  best: NtpSample
  /** Every valid sample, in the order received (fewer than asked if the time limit passed). */
  samples: NtpSample[]
  /** Requests sent, retries included. */
  attempts: number
}

/**
 * Queries the NTP server at `host` (a name, an IPv4 or an IPv6 address) for `samples` valid
 * replies, one request at a time, resending a request unanswered for `retryMs`. Replies from
 * elsewhere, or that fail a check of `validateReply`, are ignored. Rejects with NtpTimeoutError,
 * NtpAbortedError, NtpNetworkError, InvalidArgumentError, or NtpRejectedError for a kiss-o'-death
 * (DENY and RSTR at once; RATE when no sample was taken yet).
 */
export async function queryNtp(
  host: string,
  options: QueryNtpOptions = {},
): Promise<NtpQueryResult> {
  const port = checkPort(options.port ?? NTP_PORT, false)
  const wanted = checkInteger('samples', options.samples ?? 4, 1, 64)
  const intervalMs = checkInteger('intervalMs', options.intervalMs ?? 50, 0, 60_000)
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 5000, 1, 3_600_000)
  const retryMs = checkInteger(
    'retryMs',
    options.retryMs ?? Math.min(1000, Math.max(100, Math.round(timeoutMs / 5))),
    1,
    3_600_000,
  )
  const clock = options.clock ?? systemClock()
  const random = options.random ?? cryptoRandom
  const { signal } = options
  if (signal?.aborted) throw new NtpAbortedError(signal.reason)
  const address = await abortable(resolveHost(host), signal)
  const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4')
  try {
    // Connected: the kernel drops datagrams from anyone else, and send() skips a name lookup
    // that would delay the packet after T1 was read.
    await abortable(connect(socket, port, address, host), signal)
  } catch (error) {
    socket.close()
    throw error
  }
  return new Promise<NtpQueryResult>((resolve, reject) => {
    const filter = new ClockFilter<NtpSample>()
    const samples: NtpSample[] = []
    let outstanding: NtpRequest | undefined
    let attempts = 0
    let lastRejection: NtpRejectedError | undefined
    let portUnreachable = false
    let retryTimer: ReturnType<typeof setTimeout> | undefined
    let nextTimer: ReturnType<typeof setTimeout> | undefined
    let done = false

    const finish = (error?: Error) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      clearTimeout(retryTimer)
      clearTimeout(nextTimer)
      signal?.removeEventListener('abort', onAbort)
      socket.close()
      const best = filter.best
      if (error !== undefined || best === undefined)
        reject(
          error ??
            new NtpTimeoutError(host, timeoutMs, attempts, { lastRejection, portUnreachable }),
        )
      else
        resolve({
          host,
          address,
          port,
          offsetMs: best.offsetMs,
          delayMs: best.delayMs,
          errorBoundMs: best.errorBoundMs,
          rootDistanceMs: best.rootDistanceMs,
          jitterMs: filter.jitterMs,
          stratum: best.stratum,
          reference: best.reference,
          best,
          samples,
          attempts,
        })
    }
    const onAbort = () => finish(new NtpAbortedError(signal?.reason))
    const send = () => {
      if (done) return
      const request = createNtpRequest(clock(), { random })
      // T1 as late as possible: the transmit fraction is random, so only our copy of T1 counts.
      outstanding = { ...request, t1Ms: clock() }
      attempts++
      socket.send(request.bytes, (error: NodeJS.ErrnoException | null) => {
        if (error && error.code !== 'ECONNREFUSED')
          finish(new NtpNetworkError(host, 'send to', error))
        else if (error) portUnreachable = true
      })
      retryTimer = setTimeout(send, retryMs)
    }
    const onMessage = (message: Buffer, from: RemoteInfo) => {
      const t4Ms = clock()
      if (done || outstanding === undefined) return
      // The socket is connected: the kernel only delivers datagrams from the server.
      if (from.port !== port) return
      let sample: NtpSample
      try {
        sample = sampleFromReply(outstanding, message, t4Ms)
      } catch (error) {
        if (!(error instanceof NtpRejectedError)) return finish(error as Error)
        lastRejection = error
        if (error.reason !== 'kiss-o-death') return
        // A kiss is an order from the server (RFC 5905, 7.4): stop asking.
        if (error.kissCode === 'RATE' && samples.length > 0) finish()
        else finish(error)
        return
      }
      outstanding = undefined
      clearTimeout(retryTimer)
      samples.push(sample)
      filter.add(sample)
      if (samples.length >= wanted) finish()
      else nextTimer = setTimeout(send, intervalMs)
    }

    const deadline = setTimeout(() => finish(), timeoutMs)
    signal?.addEventListener('abort', onAbort, { once: true })
    socket.on('message', onMessage)
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // ICMP port unreachable for an earlier request: nothing listens yet (or any more). Like a
      // lost packet, it is retried until the time limit, and named if that passes.
      if (error.code === 'ECONNREFUSED') portUnreachable = true
      else finish(new NtpNetworkError(host, 'socket for', error))
    })
    if (signal?.aborted) onAbort()
    else send()
  })
}

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
}

/** A running server. */
export interface NtpServerHandle {
  /** The address and port it is bound to. */
  readonly address: string
  readonly port: number
  /** Requests answered and refused so far. */
  readonly answered: number
  readonly rejected: number
  /** Stops serving and releases the port. */
  close(): Promise<void>
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
  let answered = 0
  let rejected = 0
  socket.on('message', (message, from) => {
    const receiveMs = clock() + offsetMs
    let reply: Uint8Array
    try {
      const transmitMs = clock() + offsetMs
      // A clock that returns no time cannot be served (the only other way answering can throw).
      if (!Number.isFinite(receiveMs) || !Number.isFinite(transmitMs)) return
      reply = answerNtpRequest(message, receiveMs, transmitMs, resolved)
    } catch (error) {
      if (!(error instanceof NtpRejectedError)) throw error
      rejected++
      options.onRejected?.(error, { address: from.address, port: from.port })
      return
    }
    answered++
    // A failed send (the client's port vanished) is the client's loss, not the server's.
    socket.send(reply, from.port, from.address, () => {})
  })
  // Errors after binding are per-datagram on UDP (ICMP feedback): nothing to stop for.
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
      return answered
    },
    get rejected() {
      return rejected
    },
    close() {
      closed ??= new Promise<void>((resolve) => socket.close(() => resolve()))
      return closed
    },
  }
}

function connect(socket: Socket, port: number, address: string, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new NtpNetworkError(host, 'connect to', error))
    socket.once('error', onError)
    socket.connect(port, address, () => {
      socket.off('error', onError)
      resolve()
    })
  })
}

async function resolveHost(host: string): Promise<string> {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(literal) !== 0) return literal
  try {
    return (await lookup(literal)).address
  } catch (error) {
    throw new NtpNetworkError(host, 'name lookup of', error)
  }
}

function bind(socket: Socket, port: number, address: string, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === 'EACCES' && port > 0 && port < 1024
          ? ` (ports below 1024 need root; the default ${DEFAULT_SERVER_PORT} does not)`
          : ''
      reject(new NtpNetworkError(host, `bind of port ${port}${hint} for`, error))
    }
    socket.once('error', onError)
    socket.bind(port, address, () => {
      socket.off('error', onError)
      resolve()
    })
  })
}

/** Rejects with NtpAbortedError as soon as `signal` fires, whatever `promise` does. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new NtpAbortedError(signal.reason))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function cryptoRandom(): number {
  return webcrypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32
}

function checkPort(port: number, zeroAllowed: boolean): number {
  return checkInteger('port', port, zeroAllowed ? 0 : 1, 65_535)
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}, got ${value}`)
  return value
}
