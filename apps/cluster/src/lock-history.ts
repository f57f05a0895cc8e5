/**
 * The lock's history judged for linearizability (`lockModel` of `@sd/transport/history`): the
 * acquires and releases of the workload, as the nodes saw them, against one lock with leases. A
 * holding ends by its release or by its lease's end, two holdings never overlap, tokens rise.
 *
 * The history's operations say when an acquire was invoked and completed and with which token;
 * the lease is the holder's own: `withLeases` reads it from the lock's events of the run
 * (`acquired` with `leaseMs`, each `lease-renewed` with `validForMs`, a `lease-lost` ends it) and
 * writes it on the acquire as `leaseUntil` (machine ms), so a `--history` file carries it. The
 * holder counts its lease from when its request (or renewal) left, before the coordinator's count
 * began, so the holder's lease end is never after the coordinator's: a next grant before it is two
 * holders, not a slow message.
 *
 * A release of a token never granted is ignored (`lockModel({ strayRelease: 'ignore' })`): the
 * cluster's releases come from their holders, and by default a failing history may shrink to a
 * lone release whose acquire was dropped, which shows nothing. The smallest failing sub-histories
 * are then grants: two holders.
 *
 * An acquire that failed (the workload stopped waiting) or never completed is pending: it granted
 * nothing anyone relied on. An acquire without a known lease is pending too (its node was killed
 * between the grant and its report).
 */
import {
  type CheckOptions,
  type CheckResult,
  checkHistory,
  type Operation as HistoryOperation,
  type LockInput,
  type LockOutput,
  type LockState,
  lockModel,
  type Model,
} from '@sd/transport/history'
import type { Operation } from './history.js'
import type { NodeEvent } from './summary.js'

export type LockOperation = HistoryOperation<LockInput, LockOutput>

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * The history with each ok acquire's lease end (`leaseUntil`, machine ms) as its holder last knew
 * it: from its `acquired` and `lease-renewed` events, cut short by a `lease-lost`.
 */
export function withLeases(
  history: readonly Operation[],
  events: readonly NodeEvent[],
): Operation[] {
  const until = new Map<string, number>()
  const key = (node: string, token: unknown) => `${node} ${String(token)}`
  for (const { node, t, p, e } of events) {
    if (p !== 'lock' || !num(e.token)) continue
    const k = key(node, e.token)
    const known = until.get(k)
    if (e.type === 'acquired' && num(e.leaseMs)) until.set(k, t + e.leaseMs)
    else if (e.type === 'lease-renewed' && num(e.validForMs) && known !== undefined)
      until.set(k, Math.max(known, t + e.validForMs))
    else if (e.type === 'lease-lost' && known !== undefined) until.set(k, Math.min(known, t))
  }
  return history.map((o) => {
    if (o.f !== 'acquire' || o.outcome !== 'ok') return o
    const leaseUntil = until.get(key(o.node, o.token))
    return leaseUntil === undefined ? o : { ...o, leaseUntil }
  })
}

/** The acquires and releases of a cluster history, as operations of the lock model. */
export function lockHistory(history: readonly Operation[]): LockOperation[] {
  const operations: LockOperation[] = []
  for (const o of history) {
    if (o.f !== 'acquire' && o.f !== 'release') continue
    const client = `${o.node}#${o.pid}`
    const base = { id: `${o.node} ${o.pid} ${o.op}`, client, invokedAt: o.invokedAt }
    const done = o.outcome === 'ok' && o.completedAt !== undefined
    if (o.f === 'release') {
      const input: LockInput = { f: 'release', client, token: o.token ?? 0 }
      operations.push(done ? { ...base, input, completedAt: o.completedAt } : { ...base, input })
      continue
    }
    const granted = done && num(o.token) && num(o.leaseUntil)
    if (!granted) {
      operations.push({ ...base, input: { f: 'acquire', client, grantedBy: o.invokedAt } })
      continue
    }
    operations.push({
      ...base,
      input: { f: 'acquire', client, grantedBy: o.completedAt! },
      completedAt: o.completedAt,
      output: { token: o.token!, leaseEnd: o.leaseUntil! },
    })
  }
  return operations
}

/** The lock model the cluster's histories are judged by: stray releases ignored (see above). */
export const clusterLockModel = (): Model<LockState, LockInput, LockOutput> =>
  lockModel({ strayRelease: 'ignore' })

/** Whether the run's lock behaved as one lock with leases, in one order that fits real time. */
export function checkLockHistory(
  history: readonly Operation[],
  options: CheckOptions = {},
): CheckResult<LockInput, LockOutput> {
  return checkHistory(clusterLockModel(), lockHistory(history), options)
}
