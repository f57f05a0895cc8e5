/**
 * Fitting a long run into a row budget without cutting its end off. Rows that carry the story
 * (what a protocol emits, crashes, restarts, pauses, partitions, clock steps, requests) are
 * always kept. Message and timer rows are kept a whole kind at a time, the rarest kinds first
 * (an election or a probe before a heartbeat or a poll), as long as the budget holds; the rows
 * left out are folded, each run of them into one gap row that counts them by kind.
 */

/** A row to place: `fold` names its kind (`heartbeat`, `⏰ renew`) if it may be folded away. */
export interface CondenseRow<T> {
  t: number
  fold: string | undefined
  item: T
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
export function condense<T>(rows: readonly CondenseRow<T>[], budget: number): Condensed<T>[] {
  if (rows.length <= budget) return rows.map((r) => ({ kind: 'row', item: r.item }))
  const counts = new Map<string, number>()
  for (const r of rows) if (r.fold !== undefined) counts.set(r.fold, (counts.get(r.fold) ?? 0) + 1)
  // Rarest first; a tie goes to the kind seen first (Map keeps insertion order, sort is stable).
  const byRarity = [...counts.entries()].sort(([, a], [, b]) => a - b).map(([kind]) => kind)
  const kept = new Set<string>()
  for (const kind of byRarity) {
    kept.add(kind)
    if (cost(rows, kept) > budget) kept.delete(kind)
  }
  return arrange(rows, kept)
}

/** Rows drawn when the kinds in `kept` are shown: kept rows plus one per folded run. */
function cost<T>(rows: readonly CondenseRow<T>[], kept: ReadonlySet<string>): number {
  let total = 0
  let inGap = false
  for (const r of rows) {
    const shown = r.fold === undefined || kept.has(r.fold)
    if (shown) total++
    else if (!inGap) total++
    inGap = !shown
  }
  return total
}

function arrange<T>(rows: readonly CondenseRow<T>[], kept: ReadonlySet<string>): Condensed<T>[] {
  const out: Condensed<T>[] = []
  let run: CondenseRow<T>[] = []
  const close = () => {
    // A run of one costs a row either way: draw the row itself.
    if (run.length === 1 && run[0] !== undefined) out.push({ kind: 'row', item: run[0].item })
    else if (run.length > 1) out.push({ kind: 'gap', gap: gapOf(run) })
    run = []
  }
  for (const r of rows) {
    if (r.fold !== undefined && !kept.has(r.fold)) {
      run.push(r)
      continue
    }
    close()
    out.push({ kind: 'row', item: r.item })
  }
  close()
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
