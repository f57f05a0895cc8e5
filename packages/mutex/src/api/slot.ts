/**
 * One resource as this node's lock sees it, and the rules for handing its entry to local waiters.
 * At most one protocol acquire is in flight per resource: the protocol cannot take an acquire
 * back, so a grant nobody waits for any more is given to the next waiter, or released at once.
 */
import type { LockMode, PermitCount } from '../contract.js'
import type { Lease } from './handle.js'

/** What a waiter asks for. */
export interface Want {
  mode: LockMode
  permits: PermitCount | undefined
  ifAvailable: boolean
  steal: boolean
}

export interface Waiter {
  resource: string
  since: number
  want: Want
  priority: number
  /** Arrival order, for FIFO among equal priorities. */
  seq: number
  owner: unknown
  resolve(handle: Lease): void
  reject(error: unknown): void
  /** Clears its timer and signal listener. */
  cleanup(): void
}

export interface Slot {
  state: 'idle' | 'asking' | 'held' | 'releasing'
  /** The entry's token (held or releasing). */
  token: number
  /** How the protocol granted the entry (an algorithm may grant more than asked). */
  granted: { mode: LockMode; permits: PermitCount | undefined; exclusive: boolean }
  /** This node's holders of the entry (several when they share it). */
  holders: Lease[]
  /** Holders that released the entry: done once the protocol released it. */
  leaving: Lease[]
  /** When the entry's lease ends on the lock's monotonic clock (Infinity without a lease). */
  validUntil: number
  /** Highest priority first, FIFO among equals; a steal goes first. */
  waiters: Waiter[]
}

export function newSlot(): Slot {
  return {
    state: 'idle',
    token: 0,
    granted: { mode: 'exclusive', permits: undefined, exclusive: true },
    holders: [],
    leaving: [],
    validUntil: Number.POSITIVE_INFINITY,
    waiters: [],
  }
}

/** Puts `w` after every waiter of its priority or higher (a steal ranks above all). */
export function enqueue(waiters: Waiter[], w: Waiter): void {
  const rank = (x: Waiter) => (x.want.steal ? Number.POSITIVE_INFINITY : x.priority)
  let at = waiters.length
  while (at > 0 && rank(waiters[at - 1]!) < rank(w)) at--
  waiters.splice(at, 0, w)
}

/** Whether an entry granted as `granted` gives `want` what it asked, or more. */
export function satisfies(granted: Slot['granted'], want: Want): boolean {
  if (granted.exclusive) return true
  if (want.steal) return false
  if (granted.permits !== undefined) {
    return want.permits !== undefined && want.permits.take <= granted.permits.take
  }
  return want.permits === undefined && want.mode === 'shared'
}

/**
 * Whether `want` may join the holders of a held entry now: local shared holders share one entry
 * (whether the protocol granted it shared or exclusive). Permit holders of one node take turns.
 */
export function canJoin(slot: Slot, want: Want): boolean {
  return (
    slot.state === 'held' &&
    slot.holders.length > 0 &&
    want.mode === 'shared' &&
    want.permits === undefined &&
    !want.steal &&
    slot.holders.every((h) => h.info.asked === 'shared') &&
    (slot.granted.exclusive || slot.granted.mode === 'shared')
  )
}

/** What a holder of `want` is recorded as having asked for. */
export function askedOf(want: Want): LockMode | 'permits' {
  return want.permits === undefined ? want.mode : 'permits'
}
