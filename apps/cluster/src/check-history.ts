/**
 * `check-history FILE`: a history written with `--history` judged again for linearizability, per
 * model (summary/linearizability.ts), e.g. after editing it by hand to see what a stale read or a
 * second holder looks like. Times are shown in ms since the first operation's invocation (the
 * file does not know the run's origin). Exit status: 0 linearizable (or undecided), 1 not, 2 the
 * file cannot be read.
 */
import { readFileSync } from 'node:fs'
import type { Operation } from './history.js'
import { describeOperation, judgeHistories, type ModelVerdict } from './summary/linearizability.js'

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
): { text: string; code: number; verdicts?: ModelVerdict[] } {
  let history: Operation[]
  try {
    history = readHistoryFile(file)
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return { text: `cluster check-history: cannot read ${file}: ${why}\n`, code: 2 }
  }
  const origin = Math.min(...history.map((o) => o.invokedAt))
  const verdicts = judgeHistories(history, Number.isFinite(origin) ? origin : 0)
  const code = verdicts.some((v) => v.verdict === 'not-linearizable') ? 1 : 0
  if (json) return { text: `${JSON.stringify(verdicts)}\n`, code, verdicts }
  const lines = [`${file}: ${history.length} operations`]
  for (const v of verdicts) {
    lines.push(
      `  ${v.model}: ${v.verdict}${v.message ? ` (${v.message})` : ''}; ${v.operations} operations, ${v.steps} steps, ${v.checkMs} ms`,
    )
    if (v.counterexample === undefined) continue
    lines.push(
      `    ${v.minimal ? 'minimal ' : ''}failing sub-history (ms since the first operation):`,
    )
    for (const o of v.counterexample) lines.push(`      ${describeOperation(o)}`)
  }
  return { text: `${lines.join('\n')}\n`, code, verdicts }
}
