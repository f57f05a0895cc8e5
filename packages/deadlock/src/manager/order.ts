import type { ProcRef } from './messages.js'

/** The older of two processes: the smaller timestamp, then the smaller id (as text). */
export function olderThan(a: ProcRef, b: ProcRef): boolean {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp
  return String(a.id) < String(b.id)
}

/**
 * The victim rule: the youngest process of the cycle (the largest timestamp, then the largest
 * id). It has done the least work, and every detector that sees the same cycle picks the same
 * one, so two detections of one deadlock abort one process, not two.
 */
export function youngest(cycle: readonly ProcRef[]): ProcRef {
  let pick = cycle[0]!
  for (const p of cycle) if (olderThan(pick, p)) pick = p
  return pick
}
