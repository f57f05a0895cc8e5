/**
 * The lock's tokens, per node (entries in order across nodes are the global checks'): each
 * coordinator grants increasing tokens, across its restarts too, and every token entered with
 * belongs to a term some leader was elected in (the term leads the token). And the lock's
 * recovery after a holder was killed or paused.
 */
import { formatToken, termOfToken } from '../node/protocol.js'
import type { RunRecord } from '../summary.js'

/** Critical sections entered, and what broke the rules on tokens. */
export function tokenChecks(
  run: RunRecord,
  electedTerms: ReadonlySet<number>,
): { entries: number; violations: string[] } {
  const violations: string[] = []
  const lastGranted = new Map<string, number>()
  let entries = 0
  for (const { node, p, e } of run.events) {
    if (p !== 'lock') continue
    const token = e.token as number
    if (e.type === 'acquired') {
      entries++
      if (!electedTerms.has(termOfToken(token))) {
        violations.push(
          `${node} entered with ${formatToken(token)}, of a term no leader was elected in`,
        )
      }
    } else if (e.type === 'granted') {
      const last = lastGranted.get(node)
      if (last !== undefined && token <= last) {
        violations.push(
          `fencing token went backwards at coordinator ${node}: granted ${formatToken(token)} after ${formatToken(last)}`,
        )
      }
      lastGranted.set(node, Math.max(last ?? 0, token))
    }
  }
  return { entries, violations }
}

/** After each holder fault: until another node entered with a newer token (ms). */
export function lockRecoveryMs(run: RunRecord): number[] {
  const recoveries: number[] = []
  for (const f of run.faults) {
    if (f.t === undefined || f.token === undefined) continue
    const victim = f.targets[0]
    const next = run.events
      .filter(
        (x) =>
          x.p === 'lock' &&
          x.e.type === 'acquired' &&
          x.node !== victim &&
          x.t >= f.t! &&
          (x.e.token as number) > f.token!,
      )
      .sort((a, b) => a.t - b.t)[0]
    if (next !== undefined) recoveries.push(Math.round(next.t - f.t))
  }
  return recoveries
}
