import type { MarkLine } from './model.js'

/**
 * The loop of a liveness lasso, from the marks `sd check --trace` puts in a replayed lasso
 * (apps/playground/src/check/lasso-marks.ts): `lasso: loop begins` where the prefix ends, then
 * `lasso: loop turn N ends` after each turn. The band spans from the first to the last turn's
 * end; undefined when the trace has no loop (no lasso, or a deadlock: nothing repeats).
 */
export interface LoopBand {
  fromSeq: number
  toSeq: number
  turns: number
}

const BEGINS = 'lasso: loop begins'
const TURN_ENDS = /^lasso: loop turn (\d+) ends$/

export function lassoLoopBand(marks: readonly MarkLine[]): LoopBand | undefined {
  const begin = marks.find((m) => m.label === BEGINS)
  if (begin === undefined) return undefined
  const ends = marks.filter((m) => TURN_ENDS.test(m.label) && m.seq >= begin.seq)
  if (ends.length === 0) return undefined
  const last = ends.reduce((a, b) => (b.seq >= a.seq ? b : a))
  return { fromSeq: begin.seq, toSeq: last.seq, turns: ends.length }
}
