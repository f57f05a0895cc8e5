/**
 * The history of a run's operations, as the nodes saw them: each with its invocation and
 * completion times (machine ms) and its outcome, as a Jepsen history has them. `ok`: the node was
 * told it succeeded; `fail`: told it did not (a fenced read or write); `info`: no answer reached
 * the node (it was killed, or the run ended), so it may or may not have taken effect.
 *
 * Checked against the register: the counter holds every increment acknowledged to a node and
 * none beyond the indeterminate ones (`ok writes <= counter <= ok + info writes`).
 */

export type OperationKind = 'acquire' | 'read' | 'write' | 'release'

export interface Operation {
  node: string
  /** The node's incarnation (its pid) and its own number for the operation. */
  pid: number
  op: number
  f: OperationKind
  token?: number
  /** Written (write) or returned (read). */
  value?: number
  invokedAt: number
  completedAt?: number
  /**
   * An ok acquire's lease end as its holder last knew it (machine ms), from the lock's events
   * (lock-history.ts): its `acquired`, `lease-renewed` and `lease-lost`.
   */
  leaseUntil?: number
  outcome: 'ok' | 'fail' | 'info'
}

export interface HistoryCounts {
  total: number
  ok: number
  fail: number
  info: number
  /** Per kind: how many ended ok. */
  okByKind: Record<OperationKind, number>
  /** Writes that may or may not have landed. */
  indeterminateWrites: number
}

export function countHistory(history: readonly Operation[]): HistoryCounts {
  const okByKind: Record<OperationKind, number> = { acquire: 0, read: 0, write: 0, release: 0 }
  let ok = 0
  let fail = 0
  let info = 0
  let indeterminateWrites = 0
  for (const o of history) {
    if (o.outcome === 'ok') {
      ok++
      okByKind[o.f]++
    } else if (o.outcome === 'fail') fail++
    else {
      info++
      if (o.f === 'write') indeterminateWrites++
    }
  }
  return { total: history.length, ok, fail, info, okByKind, indeterminateWrites }
}

/** The register against the history: every acknowledged increment in, nothing invented. */
export function historyViolations(history: readonly Operation[], counter: number): string[] {
  const c = countHistory(history)
  const acked = c.okByKind.write
  if (counter < acked) {
    return [`counter ${counter} lost increments: ${acked} writes were acknowledged to the nodes`]
  }
  if (counter > acked + c.indeterminateWrites) {
    return [
      `counter ${counter} is above the ${acked} acknowledged and ${c.indeterminateWrites} indeterminate writes`,
    ]
  }
  return []
}
