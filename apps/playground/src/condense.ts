/**
 * Fitting a long run into a row budget without cutting its end off. Rows that carry the story
 * (what a protocol emits, crashes, restarts, pauses, partitions, clock steps, requests) are
 * always kept (when they alone overflow the budget, the middle occurrences of story rows that
 * recur round after round fold too, see `repeat`). Message and timer rows are kept a whole kind at a time, the rarest kinds first
 * (an election or a probe before a heartbeat or a poll), as long as the budget holds; the rows
 * left out are folded, each run of them into one gap row that counts them by kind; budget left
 * over unfolds the shortest runs.
 */

/** A row to place: `fold` names its kind (`heartbeat`, `⏰ renew`) if it may be folded away. */
export interface CondenseRow<T> {
  t: number
  fold: string | undefined
  /** A row that explains a story row (the delivery a node was handling when it emitted): kept before any kind. */
  cause?: boolean
  /**
   * A story row that recurs round after round (one node's `trusts` in every NTP poll): `key`
   * groups its occurrences, `kind` names them in a gap. When the story alone does not fit, the
   * middle occurrences of the largest groups fold like traffic; the first two and the last stay.
   */
  repeat?: { key: string; kind: string }
  item: T
}

/** The key a row is kept or folded by: its kind, or all causes together. */
const CAUSE = '\u0000cause'
function keyOf<T>(r: CondenseRow<T>): string | undefined {
  return r.fold === undefined ? undefined : r.cause ? CAUSE : r.fold
}

/** A run of folded rows: where it starts and ends in time, and how many of each kind. */
export interface Gap {
  from: number
  to: number
  count: number
  kinds: ReadonlyArray<{ kind: string; count: number }>
}

export type Condensed<T> = { kind: 'row'; item: T } | { kind: 'gap'; gap: Gap }

/** The rows in order, with folded runs as gaps; fits `budget` rows unless the story alone does not. */
export function condense<T>(all: readonly CondenseRow<T>[], budget: number): Condensed<T>[] {
  let rows = all
  if (rows.length <= budget) return rows.map((r) => ({ kind: 'row', item: r.item }))
  rows = foldRepeats(rows, budget)
  const counts = new Map<string, number>()
  for (const r of rows) {
    const key = keyOf(r)
    if (key !== undefined && key !== CAUSE) counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  // Causes first, then the rarest kind; a tie goes to the kind seen first (sort is stable).
  const byRarity = [...counts.entries()].sort(([, a], [, b]) => a - b).map(([kind]) => kind)
  const kept = new Set<string>()
  for (const kind of [CAUSE, ...byRarity]) {
    kept.add(kind)
    if (cost(rows, kept) > budget) kept.delete(kind)
  }
  return arrange(rows, kept, budget)
}

/** Kept of a recurring story row: its first occurrences and its last. */
const REPEAT_HEAD = 2

/** The rows with the middle occurrences of recurring story rows made foldable, until the story fits. */
function foldRepeats<T>(rows: readonly CondenseRow<T>[], budget: number): CondenseRow<T>[] {
  const out = [...rows]
  if (cost(out, new Set()) <= budget) return out
  const groups = new Map<string, number[]>()
  out.forEach((r, i) => {
    if (r.fold !== undefined || r.repeat === undefined) return
    const group = groups.get(r.repeat.key)
    if (group === undefined) groups.set(r.repeat.key, [i])
    else group.push(i)
  })
  const largest = [...groups.values()].sort((a, b) => b.length - a.length)
  for (const group of largest) {
    const middle = group.slice(REPEAT_HEAD, -1)
    if (middle.length === 0) break
    for (const i of middle) {
      const r = out[i]
      if (r === undefined) continue
      out[i] = { ...r, fold: r.repeat?.kind }
      // What explained a folded row explains nothing shown: it folds as its own kind.
      for (let j = i - 1; j >= 0; j--) {
        const before = out[j]
        if (before === undefined || before.t !== r.t) break
        if (before.cause) out[j] = { ...before, cause: false }
      }
    }
    if (cost(out, new Set()) <= budget) break
  }
  return out
}

/** Rows drawn when the kinds in `kept` are shown: kept rows plus one per folded run. */
function cost<T>(rows: readonly CondenseRow<T>[], kept: ReadonlySet<string>): number {
  let total = 0
  let inGap = false
  for (const r of rows) {
    const key = keyOf(r)
    const shown = key === undefined || kept.has(key)
    if (shown) total++
    else if (!inGap) total++
    inGap = !shown
  }
  return total
}

function arrange<T>(
  rows: readonly CondenseRow<T>[],
  kept: ReadonlySet<string>,
  budget: number,
): Condensed<T>[] {
  // The folded runs, as [first, last] indexes into rows.
  const runs: Array<[number, number]> = []
  rows.forEach((r, i) => {
    const key = keyOf(r)
    if (key === undefined || kept.has(key)) return
    const last = runs[runs.length - 1]
    if (last !== undefined && last[1] === i - 1) last[1] = i
    else runs.push([i, i])
  })
  // Budget left over: unfold the shortest runs it pays for (a run of one costs a row either way).
  let spare = budget - cost(rows, kept)
  const open = new Set<number>()
  const byLength = runs.map((run, i) => ({ i, size: run[1] - run[0] + 1 }))
  byLength.sort((a, b) => a.size - b.size)
  for (const { i, size } of byLength) {
    if (size - 1 > spare) break
    spare -= size - 1
    open.add(i)
  }
  // The runs that stay folded, by their first row: each is drawn as one gap.
  const folded = new Map(runs.filter((_, i) => !open.has(i)).map(([first, last]) => [first, last]))
  const out: Condensed<T>[] = []
  let skipTo = 0
  rows.forEach((r, i) => {
    if (i < skipTo) return
    const last = folded.get(i)
    if (last === undefined) out.push({ kind: 'row', item: r.item })
    else {
      out.push({ kind: 'gap', gap: gapOf(rows.slice(i, last + 1)) })
      skipTo = last + 1
    }
  })
  return out
}

function gapOf<T>(run: readonly CondenseRow<T>[]): Gap {
  const counts = new Map<string, number>()
  for (const r of run) counts.set(r.fold ?? '', (counts.get(r.fold ?? '') ?? 0) + 1)
  return {
    from: run[0]?.t ?? 0,
    to: run[run.length - 1]?.t ?? 0,
    count: run.length,
    kinds: [...counts.entries()]
      .sort(([, a], [, b]) => b - a)
      .map(([kind, count]) => ({ kind, count })),
  }
}

/** A gap in words: `12 rows folded, 1.0–60.0 ms: heartbeat ×10, ⏰ poll ×2`. */
export function gapText(gap: Gap, decimals: number): string {
  const span =
    gap.from === gap.to
      ? `${gap.from.toFixed(decimals)} ms`
      : `${gap.from.toFixed(decimals)}–${gap.to.toFixed(decimals)} ms`
  const kinds = gap.kinds.map((k) => `${k.kind} ×${k.count}`).join(', ')
  return `${gap.count} ${gap.count === 1 ? 'row' : 'rows'} folded, ${span}: ${kinds}`
}
