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
  params?: Record<string, unknown>
  /** Anything else worth keeping: percentiles, sample lists, notes. */
  extra?: Record<string, unknown>
}

export type Benchmark = () => Promise<BenchResult[]>

/** Ratio that reads "how many times better than the baseline". */
export function withRatio(result: BenchResult): BenchResult {
  if (result.ratio !== undefined) return result // the benchmark computed its own (e.g. paired) ratio
  if (!result.baseline || result.baseline.value === 0 || result.value === 0) return result
  const ratio = result.lowerIsBetter
    ? result.baseline.value / result.value
    : result.value / result.baseline.value
  return { ...result, ratio: Math.round(ratio * 1000) / 1000 }
}
