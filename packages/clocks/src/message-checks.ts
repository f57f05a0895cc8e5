/**
 * The checks the clocks' two protocols run on a peer's message before reading it: a peer may send
 * anything, and a message that does not fit is dropped and reported as `ignored`, never thrown on.
 * Why not `@sd/transport`'s validation kit (`messageParser`, `shape`), as the other packages use:
 * this package does not depend on @sd/transport (its clocks are plain values, used without any
 * runtime), so it keeps these few guards of its own, refusing what the kit refuses.
 */
import type { NodeId } from './ids.js'
import { MAX_PEER_LAMPORT_TIME } from './lamport.js'

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype']

/** A plain object (not an array) without own `__proto__`, `constructor` or `prototype` keys. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  return !POLLUTING_KEYS.some((key) => Object.hasOwn(value, key))
}

/** A count or a clock entry: an integer >= 0 that doubles count exactly. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** A Lamport time a peer may stamp: a count no greater than MAX_PEER_LAMPORT_TIME (why: see there). */
export function isPeerLamportTime(value: unknown): value is number {
  return isCount(value) && value <= MAX_PEER_LAMPORT_TIME
}

/** A member id as the simulator and runtime give them: a finite number or a string. */
export function isMemberId(value: unknown): value is NodeId {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string'
}

/** The message's type, for a reason that names it. */
export const typeName = (record: Record<string, unknown>): string => JSON.stringify(record.type)
