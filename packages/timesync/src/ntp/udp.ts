// Node-only (the @sd/timesync/udp entry): the declaration build of this package leaves Node's
// types out unless a file asks for them.
/// <reference types="node" />
/**
 * NTP over UDP (node:dgram): the only I/O of the NTP code. `queryNtp` is an SNTP-style client
 * that keeps the best of a few samples; `createNtpServer` (udp-server.ts) answers client
 * requests with the local clock plus an offset. Everything else is the pure code of client.ts
 * and server.ts. Neither side lets a datagram, or a socket's failure, throw outside its
 * handlers: the client settles its promise with a typed error, the server counts and drops.
 */
import { webcrypto } from 'node:crypto'
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram'
import { isIP } from 'node:net'
import {
  createNtpRequest,
  DEFAULT_MAX_OFFSET_MS,
  type NtpRequest,
  type NtpSample,
  sampleFromReply,
} from './client.js'
import {
  InvalidArgumentError,
  NtpAbortedError,
  NtpNetworkError,
  NtpRejectedError,
  NtpTimeoutError,
} from './errors.js'
import { ClockFilter } from './filter.js'
import { systemClock, type UnixClock } from './system-clock.js'
import { checkInteger, checkPort, resolveHost } from './udp-common.js'

export { DEFAULT_SERVER_PORT } from './udp-common.js'
export {
  type CreateNtpServerOptions,
  createNtpServer,
  type NtpServerHandle,
} from './udp-server.js'

/** The NTP port servers listen on (binding it needs root or CAP_NET_BIND_SERVICE). */
export const NTP_PORT = 123

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
  /**
   * Replies whose offset is beyond ± this, ms, are refused as `offset-limit` (default one year,
   * DEFAULT_MAX_OFFSET_MS; Infinity when our own clock may be years off).
   */
  maxOffsetMs?: number
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
  /**
   * The true offset lies within offsetMs ± errorBoundMs if the server's reference is right: the
   * root distance of RFC 5905, the best sample's root delay / 2 + root dispersion + δ / 2 + ε,
   * plus the jitter, ms.
   */
  errorBoundMs: number
  /** λ, the same value as errorBoundMs, under the name selection uses, ms. */
  rootDistanceMs: number
  /** The narrower bound to the server's own clock, whatever its reference: δ / 2 + ε + jitter. */
  serverErrorBoundMs: number
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
 * elsewhere, or that fail a check of `sampleFromReply` (the header's, the timestamps', the
 * offset limit), are ignored; the last refusal is named if time runs out. Rejects with NtpTimeoutError,
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
  const maxOffsetMs = options.maxOffsetMs ?? DEFAULT_MAX_OFFSET_MS
  if (!(maxOffsetMs > 0))
    throw new InvalidArgumentError(`maxOffsetMs must be a number > 0, got ${maxOffsetMs}`)
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

    /** Ends the query: rejects with `error` (ours, or whatever the caller's clock threw) if given. */
    const finish = (error?: unknown) => {
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
      else {
        const jitterMs = filter.jitterMs
        resolve({
          host,
          address,
          port,
          offsetMs: best.offsetMs,
          delayMs: best.delayMs,
          errorBoundMs: best.rootDistanceMs + jitterMs,
          rootDistanceMs: best.rootDistanceMs + jitterMs,
          serverErrorBoundMs: best.serverErrorBoundMs + jitterMs,
          jitterMs,
          stratum: best.stratum,
          reference: best.reference,
          best,
          samples,
          attempts,
        })
      }
    }
    const onAbort = () => finish(new NtpAbortedError(signal?.reason))
    const send = () => {
      if (done) return
      let request: NtpRequest
      try {
        request = createNtpRequest(clock(), { random })
        // T1 as late as possible: the transmit fraction is random, so only our copy of T1 counts.
        outstanding = { ...request, t1Ms: clock() }
      } catch (error) {
        return finish(error) // a clock or random source of the caller's that failed
      }
      attempts++
      try {
        socket.send(request.bytes, (error: NodeJS.ErrnoException | null) => {
          if (error && error.code !== 'ECONNREFUSED')
            finish(new NtpNetworkError(host, 'send to', error))
          else if (error) portUnreachable = true
        })
      } catch (error) {
        // Runs from a timer: a throw here would end the process instead of the query.
        return finish(new NtpNetworkError(host, 'send to', error))
      }
      retryTimer = setTimeout(send, retryMs)
    }
    const onMessage = (message: Buffer, from: RemoteInfo) => {
      let t4Ms: number
      try {
        t4Ms = clock()
      } catch (error) {
        return finish(error)
      }
      if (done || outstanding === undefined) return
      // The socket is connected: the kernel only delivers datagrams from the server.
      if (from.port !== port) return
      let sample: NtpSample
      try {
        sample = sampleFromReply(outstanding, message, t4Ms, { maxOffsetMs })
      } catch (error) {
        if (!(error instanceof NtpRejectedError)) return finish(error)
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

function connect(socket: Socket, port: number, address: string, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new NtpNetworkError(host, 'connect to', error))
    socket.once('error', onError)
    // Node hands a failed connect (EACCES for a broadcast address...) to the callback.
    socket.connect(port, address, (error?: Error) => {
      socket.off('error', onError)
      if (error) reject(new NtpNetworkError(host, 'connect to', error))
      else resolve()
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
