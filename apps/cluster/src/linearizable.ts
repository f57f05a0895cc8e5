/**
 * The register's history judged for linearizability (`@sd/transport/history`): the reads and
 * writes of the counter, as the nodes saw them, against a fenced register, the store's own
 * sequential behaviour. A read or write carries its lock grant's token; the register refuses one
 * whose token is older than the newest it accepted (`fail`), and accepting one makes its token
 * the newest. A read returns the value; a write sets it. `info` operations are pending: they may
 * have landed or not.
 *
 * This is stronger than the counter check of history.ts: every read must return the value of the
 * last write before it in one order that fits the real-time order of the operations, and every
 * refusal must be explained by a newer token accepted before it. Times are the machine's
 * monotonic clock, read by each node (`machineNow` of wire.ts): one clock, though two operations a
 * few microseconds apart in different processes may still be stamped in the wrong order (each
 * stamp is taken a little before or after its event); the store answers one operation at a time,
 * well apart in practice.
 */
import {
  type CheckOptions,
  type CheckResult,
  checkHistory,
  combineHashes,
  type Operation as HistoryOperation,
  type Model,
} from '@sd/transport/history'
import type { Operation } from './history.js'

export interface FencedRegisterState {
  value: number
  /** The newest token accepted. */
  newest: number
}

export type FencedInput =
  | { f: 'read'; token: number }
  | { f: 'write'; token: number; value: number }

/** Accepted with the value read or written, or refused. */
export type FencedOutput = { ok: true; value: number } | { ok: false }

export type FencedOperation = HistoryOperation<FencedInput, FencedOutput>

export const fencedRegisterModel: Model<FencedRegisterState, FencedInput, FencedOutput> = {
  name: 'fenced register',
  init: () => ({ value: 0, newest: 0 }),
  step(state, input, output) {
    const fenced = input.token < state.newest
    if (output !== undefined && !output.ok) return { ok: fenced, state }
    const value = input.f === 'write' ? input.value : state.value
    const next = { value, newest: input.token }
    // A pending operation that was refused had no effect, which "never happened" covers.
    if (output === undefined) return { ok: !fenced, state: next }
    return { ok: !fenced && (input.f === 'write' || output.value === state.value), state: next }
  },
  equal: (a, b) => a.value === b.value && a.newest === b.newest,
  hash: (s) => combineHashes(s.value, s.newest),
  // An accepted write stands with the accepted reads of its value when a failure is shrunk.
  unitOf: (input, output) =>
    output?.ok !== true ? undefined : input.f === 'write' ? input.value : output.value,
  describe(input, output) {
    const result = output === undefined ? '?' : output.ok ? String(output.value) : 'fenced'
    const op = input.f === 'write' ? `write(${input.value})` : 'read'
    return `${op} with token ${input.token} -> ${result}`
  },
}

/** The reads and writes of a cluster history, as operations of the fenced register. */
export function registerHistory(history: readonly Operation[]): FencedOperation[] {
  const operations: FencedOperation[] = []
  for (const o of history) {
    if (o.f !== 'read' && o.f !== 'write') continue
    const token = o.token ?? 0
    const input: FencedInput =
      o.f === 'read' ? { f: 'read', token } : { f: 'write', token, value: o.value ?? Number.NaN }
    const base = { id: `${o.node} ${o.pid} ${o.op}`, client: `${o.node}#${o.pid}`, input }
    if (o.outcome === 'info' || o.completedAt === undefined)
      operations.push({ ...base, invokedAt: o.invokedAt })
    else
      operations.push({
        ...base,
        invokedAt: o.invokedAt,
        completedAt: o.completedAt,
        output: o.outcome === 'ok' ? { ok: true, value: o.value ?? Number.NaN } : { ok: false },
      })
  }
  return operations
}

/** Whether the run's register behaved as one fenced register, in one order that fits real time. */
export function checkRegisterHistory(
  history: readonly Operation[],
  options: CheckOptions = {},
): CheckResult<FencedInput, FencedOutput> {
  return checkHistory(fencedRegisterModel, registerHistory(history), options)
}
