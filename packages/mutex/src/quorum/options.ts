import { InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'

export interface QuorumMutexOptions {
  /** The n coordinators: node ids among the members (any member may also be a client). */
  coordinators: readonly NodeId[]
  /** Grants a client needs to enter: an integer with n/2 < m <= n. Default: a majority. */
  m?: number
  /**
   * Keep each coordinator's grant (and grant counter) in `ctx.storage`, so a restart remembers
   * whom it granted. Default false, as in the texts: grants live in memory and a restart forgets
   * them, which is what makes mutual exclusion only probable.
   */
  durableGrants?: boolean
  /** How long a client waits for m grants before giving back what it got. Default 200 ms. */
  timeoutMs?: number
  /** Backoff window after the first failed attempt; it doubles with each failure. Default 10 ms. */
  backoffMs?: number
  /** The largest backoff window. Default 1000 ms. */
  maxBackoffMs?: number
  /**
   * How long a coordinator's grant may go without news before the coordinator, denying another
   * client, asks the holder whether it still uses it (a QUERY, answered with a RELEASE when the
   * round is over): how a grant whose RELEASE or GRANT was lost is reclaimed. Measured on the
   * monotonic clock. Default: `timeoutMs`.
   */
  reclaimAfterMs?: number
}

export interface QuorumMutexSettings {
  coordinators: readonly NodeId[]
  isCoordinator: (id: NodeId) => boolean
  n: number
  m: number
  durableGrants: boolean
  timeoutMs: number
  backoffMs: number
  maxBackoffMs: number
  reclaimAfterMs: number
}

export const DEFAULT_DURABLE_GRANTS = false
export const DEFAULT_TIMEOUT_MS = 200
export const DEFAULT_BACKOFF_MS = 10
export const DEFAULT_MAX_BACKOFF_MS = 1000

const positive = (name: string, value: number): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`quorumMutex: ${name} must be a finite number > 0, got ${value}`)
  }
  return value
}

/** Fills in the defaults and checks every value, once, when the factory is built. */
export function resolveOptions(options: QuorumMutexOptions): QuorumMutexSettings {
  const list = options?.coordinators
  if (!Array.isArray(list) || list.length === 0) {
    throw new InvalidArgumentError('quorumMutex: coordinators must be a non-empty list of node ids')
  }
  for (const id of list) {
    if (!isNodeId(id)) {
      throw new InvalidArgumentError(`quorumMutex: coordinator ${String(id)} is not a node id`)
    }
  }
  const set = new Set<NodeId>(list)
  if (set.size !== list.length) {
    throw new InvalidArgumentError('quorumMutex: coordinators must not repeat an id')
  }
  const n = list.length
  const m = options.m ?? Math.floor(n / 2) + 1
  if (!Number.isSafeInteger(m) || !(2 * m > n) || m > n) {
    throw new InvalidArgumentError(
      `quorumMutex: m must be an integer with n/2 < m <= n (n = ${n}), got ${m}`,
    )
  }
  const durableGrants = options.durableGrants ?? DEFAULT_DURABLE_GRANTS
  if (typeof durableGrants !== 'boolean') {
    throw new InvalidArgumentError('quorumMutex: durableGrants must be a boolean')
  }
  const backoffMs = positive('backoffMs', options.backoffMs ?? DEFAULT_BACKOFF_MS)
  const maxBackoffMs = positive('maxBackoffMs', options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS)
  if (maxBackoffMs < backoffMs) {
    throw new InvalidArgumentError(
      `quorumMutex: maxBackoffMs (${maxBackoffMs}) must be >= backoffMs (${backoffMs})`,
    )
  }
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS)
  return {
    coordinators: [...list],
    isCoordinator: (id) => set.has(id),
    n,
    m,
    durableGrants,
    timeoutMs,
    backoffMs,
    maxBackoffMs,
    reclaimAfterMs: positive('reclaimAfterMs', options.reclaimAfterMs ?? timeoutMs),
  }
}
