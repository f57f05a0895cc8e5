/**
 * The run's history judged for linearizability, per model: the reads and writes against the
 * fenced register (linearizable.ts), the acquires and releases against the lock with leases
 * (lock-history.ts). A history that is not linearizable fails the run, with the minimal
 * sub-history that shows it; one the checker could not decide within its bound (`unknown`) says so
 * and fails nothing. The same verdicts go into the trace (`historyCheck`, see
 * `historyCheckDocument`), where the visualizer draws the sub-history's operations.
 */
import {
  type CheckResult,
  checkHistory,
  type Operation as HistoryOperation,
  type Model,
} from '@sd/transport/history'
import type { Operation } from '../history.js'
import { fencedRegisterModel, registerHistory } from '../linearizable.js'
import { clusterLockModel, lockHistory } from '../lock-history.js'

/** Search steps per model at most: far beyond what a run's mostly sequential history takes. */
export const HISTORY_MAX_STEPS = 2_000_000

/** One operation of a sub-history, on the run's clock (ms since its origin, as the trace's `t`). */
export interface CheckedOperation {
  /** The node whose line it is drawn on, and the client (node#pid) that invoked it. */
  node: string
  client: string
  invokedAt: number
  /** Absent when it never completed (pending: it may or may not have taken effect). */
  completedAt?: number
  /** The operation in words: `n1#42 acquire -> token 1:3 until 1012`, `read with token ... -> 4`. */
  label: string
}

export interface ModelVerdict {
  /** `register` (the fenced register of the reads and writes) or `lock` (acquires and releases). */
  model: 'register' | 'lock'
  verdict: 'linearizable' | 'not-linearizable' | 'unknown'
  /** Operations judged, and the search steps and time (ms) the check took. */
  operations: number
  steps: number
  checkMs: number
  /** Why, in words, when not linearizable or unknown. */
  message?: string
  /** When not linearizable: a sub-history that is not linearizable either (minimal if `minimal`). */
  counterexample?: CheckedOperation[]
  minimal?: boolean
}

interface Judged<I, O> {
  model: ModelVerdict['model']
  checker: Model<unknown, I, O>
  operations: HistoryOperation<I, O>[]
}

/**
 * Both models' verdicts on `history`, judged on the run's clock: every time (machine ms) minus
 * `origin`, so that the operations' words and the trace's `t` agree.
 */
export function judgeHistories(
  recorded: readonly Operation[],
  origin: number,
  maxSteps = HISTORY_MAX_STEPS,
): ModelVerdict[] {
  // Rounded to the µs as the trace's times are; rounding keeps every order (a tie only overlaps).
  const rel = (t: number) => Math.round((t - origin) * 1000) / 1000
  const history = recorded.map((o) => ({
    ...o,
    invokedAt: rel(o.invokedAt),
    ...(o.completedAt === undefined ? {} : { completedAt: rel(o.completedAt) }),
    ...(o.leaseUntil === undefined ? {} : { leaseUntil: rel(o.leaseUntil) }),
  }))
  const nodeOf = new Map(history.map((o) => [`${o.node} ${o.pid} ${o.op}`, o.node]))
  const register: Judged<unknown, unknown> = {
    model: 'register',
    checker: fencedRegisterModel as Model<unknown, unknown, unknown>,
    operations: registerHistory(history) as HistoryOperation<unknown, unknown>[],
  }
  const lock: Judged<unknown, unknown> = {
    model: 'lock',
    checker: clusterLockModel() as Model<unknown, unknown, unknown>,
    operations: lockHistory(history) as HistoryOperation<unknown, unknown>[],
  }
  return [register, lock].map((j) => judge(j, maxSteps, nodeOf))
}

function judge(
  j: Judged<unknown, unknown>,
  maxSteps: number,
  nodeOf: Map<string, string>,
): ModelVerdict {
  const started = performance.now()
  const r: CheckResult<unknown, unknown> = checkHistory(j.checker, j.operations, { maxSteps })
  const checkMs = Math.round((performance.now() - started) * 10) / 10
  const base = { model: j.model, operations: j.operations.length, steps: r.steps, checkMs }
  if (r.verdict === 'linearizable') return { ...base, verdict: 'linearizable' }
  if (r.verdict === 'unknown')
    return {
      ...base,
      verdict: 'unknown',
      message: `not decided within ${maxSteps} search steps (${r.reason})`,
    }
  // The lock's words name the client already.
  const words = (o: HistoryOperation<unknown, unknown>) =>
    `${j.model === 'lock' ? '' : `${String(o.client)} `}${j.checker.describe!(o.input, o.output)}`
  const counterexample = r.counterexample.map((o) => ({
    node: nodeOf.get(String(o.id)) ?? String(o.client).split('#')[0]!,
    client: String(o.client),
    invokedAt: o.invokedAt,
    ...(o.completedAt === undefined ? {} : { completedAt: o.completedAt }),
    label: words(o),
  }))
  const stuck = words(r.stuck)
  return {
    ...base,
    verdict: 'not-linearizable',
    message: `no order of the operations fits real time and the ${j.checker.name}: stuck at ${stuck}`,
    counterexample,
    minimal: r.minimal,
  }
}

/** A failed model as a violation line (its sub-history is in `linearizability`). */
export function linearizabilityViolations(verdicts: readonly ModelVerdict[]): string[] {
  return verdicts
    .filter((v) => v.verdict === 'not-linearizable')
    .map(
      (v) =>
        `the ${v.model} history is not linearizable: ${v.message} (a failing sub-history of ${v.counterexample!.length} operations)`,
    )
}

/** `[12.5, 14.1] n1#42 read with token 1:3 -> 4` (ms on the run's clock). */
export function describeOperation(o: CheckedOperation): string {
  const end = o.completedAt === undefined ? 'pending' : String(o.completedAt)
  return `[${o.invokedAt}, ${end}] ${o.label}`
}

/**
 * What the trace carries of the verdicts (its top-level `historyCheck`): stable, documented in
 * the cluster's README ("the history's verdict in the trace") and read by the visualizer.
 */
export interface HistoryCheckDocument {
  format: 'sd-history-check'
  version: 1
  models: ModelVerdict[]
}

export function historyCheckDocument(verdicts: readonly ModelVerdict[]): HistoryCheckDocument {
  return { format: 'sd-history-check', version: 1, models: [...verdicts] }
}
