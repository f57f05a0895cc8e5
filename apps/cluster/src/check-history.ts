/**
 * `check-history FILE [--trace TRACE --out FILE]`: a history written with `--history` judged again
 * for linearizability, per model (summary/linearizability.ts), e.g. after editing it by hand to
 * see what a stale read or a second holder looks like. Times are shown in ms since the first
 * operation's invocation (the file does not know the run's origin); with the run's `--trace`, on
 * the trace's clock instead (found from the `acquired` entries, which carry their lease as the
 * history's acquires do), and `--out` writes that trace with these verdicts as its `historyCheck`,
 * for the visualizer. Exit status: 0 linearizable (or undecided), 1 not, 2 a file cannot be read.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import type { Operation } from './history.js'
import {
  describeOperation,
  historyCheckDocument,
  judgeHistories,
  type ModelVerdict,
} from './summary/linearizability.js'

interface TraceLike {
  events: Array<{ t: number; type: string; node?: unknown; event?: unknown }>
}

/**
 * The run's origin (machine ms) from its trace: an ok acquire's `leaseUntil` is its `acquired`
 * event's machine time plus `leaseMs`, and the trace has that event at machine time minus origin.
 */
export function originFromTrace(history: readonly Operation[], trace: TraceLike): number {
  const leases = new Map<string, number>()
  for (const o of history)
    if (o.f === 'acquire' && o.leaseUntil !== undefined)
      leases.set(`${o.node} ${o.token}`, o.leaseUntil)
  for (const e of trace.events) {
    if (e.type !== 'emit') continue
    const { proto, event } = (e.event ?? {}) as { proto?: unknown; event?: Record<string, unknown> }
    if (proto !== 'lock' || event?.type !== 'acquired' || typeof event.leaseMs !== 'number')
      continue
    const until = leases.get(`${String(e.node)} ${String(event.token)}`)
    if (until !== undefined) return until - event.leaseMs - e.t
  }
  throw new Error('no acquire of the history is in the trace: not the trace of this run')
}

export function readHistoryFile(file: string): Operation[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const o = JSON.parse(line) as Operation
      if (typeof o?.node !== 'string' || typeof o.invokedAt !== 'number' || typeof o.f !== 'string')
        throw new Error(`line ${i + 1} is not an operation of a --history file`)
      return o
    })
}

/** The verdicts of a history file, in words, and the exit status they mean. */
export function checkHistoryFile(
  file: string,
  json: boolean,
  withTrace: { trace: string; out?: string } | undefined = undefined,
): { text: string; code: number; verdicts?: ModelVerdict[] } {
  let history: Operation[]
  let trace: TraceLike | undefined
  let origin: number
  try {
    history = readHistoryFile(file)
    if (withTrace !== undefined) {
      trace = JSON.parse(readFileSync(withTrace.trace, 'utf8')) as TraceLike
      if (!Array.isArray(trace?.events)) throw new Error(`${withTrace.trace} is not an sd trace`)
      origin = originFromTrace(history, trace)
    } else origin = Math.min(...history.map((o) => o.invokedAt))
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return { text: `cluster check-history: cannot read ${file}: ${why}\n`, code: 2 }
  }
  const verdicts = judgeHistories(history, Number.isFinite(origin) ? origin : 0)
  const code = verdicts.some((v) => v.verdict === 'not-linearizable') ? 1 : 0
  if (trace !== undefined && withTrace?.out !== undefined)
    writeFileSync(
      withTrace.out,
      JSON.stringify({ ...trace, historyCheck: historyCheckDocument(verdicts) }),
    )
  if (json) return { text: `${JSON.stringify(verdicts)}\n`, code, verdicts }
  const lines = [`${file}: ${history.length} operations`]
  for (const v of verdicts) {
    lines.push(
      `  ${v.model}: ${v.verdict}${v.message ? ` (${v.message})` : ''}; ${v.operations} operations, ${v.steps} steps, ${v.checkMs} ms`,
    )
    if (v.counterexample === undefined) continue
    lines.push(
      `    ${v.minimal ? 'minimal ' : ''}failing sub-history (${trace === undefined ? 'ms since the first operation' : "ms on the trace's clock"}):`,
    )
    for (const o of v.counterexample) lines.push(`      ${describeOperation(o)}`)
  }
  return { text: `${lines.join('\n')}\n`, code, verdicts }
}
