import type { NodeId } from '@sd/transport'
import { InvalidArgumentError } from '../errors.js'
import type { ReaderPolicy } from './grant-order.js'

export interface CentralizedOptions {
  /** The first coordinator; default: the smallest id among the members. */
  coordinator?: NodeId
  /** The first coordinator's term (an election's terms start above it); default 0. */
  term?: number
  /** When the resource is taken: `'queue'` answers nothing until it is free (default); `'deny'` answers DENIED. */
  whenBusy?: 'queue' | 'deny'
  /** Length of a grant's lease in ms; default none (a grant lasts until released). */
  leaseMs?: number
  /** How often a holder renews its lease; default leaseMs / 3. */
  renewEveryMs?: number
  /** Upper bound on one message's delay, which leases rely on; default leaseMs / 2. */
  maxDelayMs?: number
  /** A waiting request is sent again every this many ms (lost messages); default 1000. */
  resendEveryMs?: number
  /** `'deny'`: no answer within this many ms means the coordinator is unreachable; default 1000. */
  answerTimeoutMs?: number
  /** `'deny'`: first retry after a refusal, doubled each time up to retryMaxMs; default 10. */
  retryBaseMs?: number
  /** `'deny'`: longest wait between retries; default 1000. */
  retryMaxMs?: number
  /**
   * The coordinator is an elected leader with a lease (`{ type: 'coordinator-lease', term, until }`
   * requests, as `electionToLock` wires them): it grants and renews only while its lease for the
   * current term is valid on `ctx.monotonic()`, and serves waiting requests when a valid lease
   * arrives. Default false (a coordinator set by hand or by an election without leases).
   */
  leaderLease?: boolean
  /**
   * Who goes next when shared and exclusive requests wait together: `'fifo'` (default: queue
   * order, nobody starves), `'writers-first'` (a waiting exclusive request before waiting shared
   * ones, and by default a writer that loops keeps its grant for `burst` entries: readers can
   * starve while writers keep coming), `'readers-first'` (shared requests join shared holders past a
   * waiting writer: writers can starve). See `ReaderPolicy`.
   */
  readers?: ReaderPolicy
  /**
   * How many entries in a row one exclusive or permit grant covers (default 1 for exclusive grants:
   * strict turns; `WRITERS_FIRST_BURST`, 32, for exclusive grants with `readers: 'writers-first'`;
   * `PERMITS_BURST`, 8, for permit grants under every policy: see each).
   * Above 1, the GRANT of a plain exclusive request, or of a permit request, reserves that many
   * fencing tokens, and its holder, when it asks again for the same hold (an exclusive entry, or the
   * same `permits: { take, of }`) before giving the grant back (in the same turn of its event loop:
   * it gives it back on a 0 ms timer), enters again at once with the next of them, without a
   * message. Requests waiting meanwhile wait up to `burst - 1` such entries more per holder: a
   * writer that loops gets more turns than readers that queued, a semaphore client that loops keeps
   * its permits while others wait for them (see burst.ts and the README). Shared grants are never
   * kept. An explicit value applies to both kinds (`burst: 1`: strict FIFO turns for everyone).
   */
  burst?: number
  /**
   * Chubby's and Consul's lock-delay, needs `leaseMs`: when a holder's lease runs out without a
   * release, what it held (the resource, or its permits) stays taken this many ms more, so a
   * holder that lost its lease unknowingly has time to stop. Default none.
   */
  lockDelayMs?: number
}

/** Options with their defaults applied (lease fields are undefined when there are no leases). */
export interface CentralizedSettings {
  coordinator: NodeId | undefined
  term: number
  whenBusy: 'queue' | 'deny'
  lease: { ms: number; renewEveryMs: number; maxDelayMs: number } | undefined
  answerTimeoutMs: number
  resendEveryMs: number
  retryBaseMs: number
  retryMaxMs: number
  leaderLease: boolean
  readers: ReaderPolicy
  burst: BurstSettings
  lockDelayMs: number | undefined
}

/** Option `burst` per kind of grant (burst.ts); shared grants are never kept. */
export interface BurstSettings {
  exclusive: number
  permits: number
}

/** Terms stay below 2^21 so that term * 2^32 + counter is an exact integer. */
export const MAX_TERM = 2 ** 21 - 1
/**
 * The span of fencing tokens of one coordinator term: a token is `term * TOKENS_PER_TERM +
 * counter`, so `Math.floor(token / TOKENS_PER_TERM)` is the term that granted it, and every token
 * of a newer term is above every token of the terms before.
 */
export const TOKENS_PER_TERM = 2 ** 32

/**
 * The default `burst` under `readers: 'writers-first'`. That policy puts a waiting writer before
 * waiting readers; a writer that loops asks again only after its RELEASE reached the coordinator,
 * which has granted the waiting readers by then, so without a burst it gets one entry per turn of
 * the readers, as under 'fifo'. A writer asking again as it leaves is a waiting writer: the burst
 * lets it go first, as the policy says, bounded so that readers still get a turn. For exclusive
 * grants only (permit grants: `PERMITS_BURST`).
 */
export const WRITERS_FIRST_BURST = 32

/**
 * The default `burst` of permit grants (a semaphore), under every `readers` policy. With strict
 * turns, every release of a client that loops hands its permits to the next waiting client: a
 * RELEASE, a GRANT and a wake-up of another process per entry, where a client that asks again as
 * it leaves could go on at no cost. Like java.util.concurrent's `Semaphore`, whose default lets a
 * thread that asks take a permit before the waiting ones (it is not fair unless asked), the default
 * lets a looping holder keep its permits; unlike it, bounded: a waiting client is passed by at most
 * 7 entries per holder, so nobody starves. `burst: 1` gives strict FIFO turns.
 */
export const PERMITS_BURST = 8

/** A grant reserves `burst` tokens of its term's 2^32: far fewer. */
export const MAX_BURST = 1000

export const DEFAULT_TERM = 0
export const DEFAULT_WHEN_BUSY = 'queue'
/** By default a holder renews every leaseMs / DEFAULT_RENEWALS_PER_LEASE. */
export const DEFAULT_RENEWALS_PER_LEASE = 3
/** By default maxDelayMs is this share of leaseMs. */
export const DEFAULT_MAX_DELAY_SHARE = 0.5
export const DEFAULT_RESEND_EVERY_MS = 1000
export const DEFAULT_ANSWER_TIMEOUT_MS = 1000
export const DEFAULT_RETRY_BASE_MS = 10
export const DEFAULT_RETRY_MAX_MS = 1000
export const DEFAULT_LEADER_LEASE = false

const positive = (name: string, v: unknown): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new InvalidArgumentError(
      `centralized: ${name} must be a finite number above 0, got ${String(v)}`,
    )
  }
  return v
}

/** Fills in the defaults and checks every value (`InvalidArgumentError` on a bad one). */
export function resolveOptions(options: CentralizedOptions = {}): CentralizedSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('centralized: options must be an object')
  }
  const { coordinator, term = DEFAULT_TERM, whenBusy = DEFAULT_WHEN_BUSY } = options
  if (
    coordinator !== undefined &&
    !(typeof coordinator === 'string' || Number.isFinite(coordinator))
  ) {
    throw new InvalidArgumentError(
      `centralized: coordinator must be a node id, got ${String(coordinator)}`,
    )
  }
  if (!Number.isSafeInteger(term) || term < 0 || term > MAX_TERM) {
    throw new InvalidArgumentError(
      `centralized: term must be an integer in [0, ${MAX_TERM}], got ${String(term)}`,
    )
  }
  if (whenBusy !== 'queue' && whenBusy !== 'deny') {
    throw new InvalidArgumentError(
      `centralized: whenBusy must be 'queue' or 'deny', got ${String(whenBusy)}`,
    )
  }
  let lease: CentralizedSettings['lease']
  if (options.leaseMs !== undefined) {
    const ms = positive('leaseMs', options.leaseMs)
    const renewEveryMs = positive(
      'renewEveryMs',
      options.renewEveryMs ?? ms / DEFAULT_RENEWALS_PER_LEASE,
    )
    if (renewEveryMs >= ms) {
      throw new InvalidArgumentError(
        `centralized: renewEveryMs (${renewEveryMs}) must be below leaseMs (${ms})`,
      )
    }
    lease = {
      ms,
      renewEveryMs,
      maxDelayMs: positive('maxDelayMs', options.maxDelayMs ?? ms * DEFAULT_MAX_DELAY_SHARE),
    }
  } else if (options.renewEveryMs !== undefined || options.maxDelayMs !== undefined) {
    throw new InvalidArgumentError('centralized: renewEveryMs and maxDelayMs need leaseMs')
  }
  const { leaderLease = DEFAULT_LEADER_LEASE } = options
  if (typeof leaderLease !== 'boolean') {
    throw new InvalidArgumentError(
      `centralized: leaderLease must be a boolean, got ${String(leaderLease)}`,
    )
  }
  const { readers = 'fifo' } = options
  if (readers !== 'fifo' && readers !== 'writers-first' && readers !== 'readers-first') {
    throw new InvalidArgumentError(
      `centralized: readers must be 'fifo', 'writers-first' or 'readers-first', got ${String(readers)}`,
    )
  }
  const { burst: given } = options
  if (given !== undefined && (!Number.isSafeInteger(given) || given < 1 || given > MAX_BURST)) {
    throw new InvalidArgumentError(
      `centralized: burst must be an integer in [1, ${MAX_BURST}], got ${String(given)}`,
    )
  }
  // The writers-first default is for looping writers (WRITERS_FIRST_BURST); permits burst by
  // default under every policy (PERMITS_BURST). An explicit burst applies to both.
  const burst: BurstSettings =
    given !== undefined
      ? { exclusive: given, permits: given }
      : {
          exclusive: readers === 'writers-first' ? WRITERS_FIRST_BURST : 1,
          permits: PERMITS_BURST,
        }
  if (options.lockDelayMs !== undefined && lease === undefined) {
    throw new InvalidArgumentError('centralized: lockDelayMs needs leaseMs')
  }
  const lockDelayMs =
    options.lockDelayMs === undefined ? undefined : positive('lockDelayMs', options.lockDelayMs)
  const retryBaseMs = positive('retryBaseMs', options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS)
  const retryMaxMs = positive('retryMaxMs', options.retryMaxMs ?? DEFAULT_RETRY_MAX_MS)
  if (retryMaxMs < retryBaseMs) {
    throw new InvalidArgumentError(
      `centralized: retryMaxMs (${retryMaxMs}) must not be below retryBaseMs (${retryBaseMs})`,
    )
  }
  return {
    coordinator,
    term,
    whenBusy,
    lease,
    answerTimeoutMs: positive(
      'answerTimeoutMs',
      options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS,
    ),
    resendEveryMs: positive('resendEveryMs', options.resendEveryMs ?? DEFAULT_RESEND_EVERY_MS),
    retryBaseMs,
    retryMaxMs,
    leaderLease,
    readers,
    burst,
    lockDelayMs,
  }
}
