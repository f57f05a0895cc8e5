/** One benchmark figure, as written to bench/out/<name>.json, or bench/results/ with --save (see docs/architecture.md, "How we benchmark"). */
export interface BenchResult {
  /** Dotted name, also the file name: `sim.pingpong.deliveries`. */
  name: string
  unit: string
  /** The median of the samples. */
  value: number
  /** What a user would pick instead, measured in the same run. */
  baseline?: { name: string; value: number }
  /**
   * value / baseline.value (or the inverse for lower-is-better units, see `lowerIsBetter`), unless
   * the benchmark sets it itself, e.g. as the median of ratios paired sample by sample.
   */
  ratio?: number
  lowerIsBetter?: boolean
  /**
   * The figure and the baseline per round, paired: measured back to back (interleaved) in the same
   * round. `pnpm bench` derives `ratios` from them, so one noisy round shows instead of hiding in
   * a median.
   */
  rounds?: { value: readonly number[]; baseline: readonly number[] }
  /**
   * The per-round ratios and their median, min and max: written by `pnpm bench` from `rounds`, or
   * by a benchmark whose `ratio` reads the other way (ours / theirs for times: lower is better).
   */
  ratios?: RatioSpread
  params?: Record<string, unknown>
  /** Anything else worth keeping: percentiles, sample lists, notes. */
  extra?: Record<string, unknown>
}

export type Benchmark = () => Promise<BenchResult[]>

export interface RatioSpread {
  perRound: number[]
  median: number
  min: number
  max: number
}

const round3 = (x: number) => Math.round(x * 1000) / 1000

/**
 * Ratio that reads "how many times better than the baseline": the benchmark's own if it set one,
 * else the median of the per-round ratios when it gave `rounds`, else the ratio of the medians.
 */
export function withRatio(result: BenchResult): BenchResult {
  const ratios =
    result.ratios ?? (result.rounds && spreadOf(result.rounds, result.lowerIsBetter === true))
  const withSpread = ratios ? { ...result, ratios } : result
  if (result.ratio !== undefined) return withSpread // the benchmark computed its own ratio
  if (ratios) return { ...withSpread, ratio: ratios.median }
  if (!result.baseline || result.baseline.value === 0 || result.value === 0) return withSpread
  return {
    ...withSpread,
    ratio: round3(better(result.value, result.baseline.value, result.lowerIsBetter === true)),
  }
}

/** Per-round ratios, skipping rounds where either side is 0 (nothing measured). */
export function spreadOf(
  rounds: NonNullable<BenchResult['rounds']>,
  lowerIsBetter: boolean,
): RatioSpread | undefined {
  if (rounds.value.length !== rounds.baseline.length) {
    throw new Error(
      `rounds: ${rounds.value.length} values against ${rounds.baseline.length} baselines; they must pair`,
    )
  }
  const perRound = rounds.value.flatMap((v, i) => {
    const b = rounds.baseline[i]!
    return v > 0 && b > 0 ? [round3(better(v, b, lowerIsBetter))] : []
  })
  if (perRound.length === 0) return undefined
  const sorted = [...perRound].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { perRound, median: round3(median), min: sorted[0]!, max: sorted.at(-1)! }
}

function better(value: number, baseline: number, lowerIsBetter: boolean): number {
  return lowerIsBetter ? baseline / value : value / baseline
}
