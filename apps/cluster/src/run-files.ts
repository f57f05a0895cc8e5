/**
 * What a run leaves when asked: `--history FILE` (one JSON line per operation) and `--trace FILE`
 * (the sd-trace document, with the history's verdicts as its `historyCheck` for the visualizer).
 */
import { writeFileSync } from 'node:fs'
import type { Options } from './args.js'
import { historyCheckDocument } from './summary/linearizability.js'
import type { RunRecord, Summary } from './summary.js'
import type { TraceRecorder } from './trace.js'

export function writeRunFiles(
  o: Pick<Options, 'history' | 'trace'>,
  record: RunRecord,
  summary: Summary,
  trace: TraceRecorder | undefined,
  line: (text: string) => void,
): void {
  if (o.history) {
    const lines = record.history.map((op) => JSON.stringify(op))
    writeFileSync(o.history, lines.length > 0 ? `${lines.join('\n')}\n` : '')
    line(`history written to ${o.history}`)
  }
  if (trace && o.trace) {
    const historyCheck = historyCheckDocument(summary.linearizability)
    writeFileSync(o.trace, JSON.stringify({ ...trace.document(record.nodes), historyCheck }))
    line(`trace written to ${o.trace}`)
  }
}
