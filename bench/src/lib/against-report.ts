/**
 * The comparison `pnpm bench:against` reports: for every figure both builds produced, each
 * round's ratio (this tree over the other build, turned so that above 1 is better), their median,
 * minimum and maximum, beside the medians of each side. Pure: the CLI feeds it the JSON files.
 */
import type { BenchResult } from './result.js'

/** One round: the figures each side wrote, by name. */
export interface AgainstRound {
  current: ReadonlyMap<string, BenchResult>
  baseline: ReadonlyMap<string, BenchResult>
}

export interface FigureComparison {
  name: string
  unit: string
  lowerIsBetter: boolean
  current: number[]
  baseline: number[]
  /** Per round, current over baseline (baseline over current for lower-is-better units). */
  ratios: number[]
  ratio: { median: number; min: number; max: number }
}

export interface AgainstComparison {
  figures: FigureComparison[]
  /** Figures only one side produced in some round (a benchmark the other build cannot run). */
  unmatched: string[]
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const round3 = (x: number) => Math.round(x * 1000) / 1000

export function compareRounds(rounds: readonly AgainstRound[]): AgainstComparison {
  const names = new Set<string>()
  for (const r of rounds) for (const n of [...r.current.keys(), ...r.baseline.keys()]) names.add(n)
  const figures: FigureComparison[] = []
  const unmatched: string[] = []
  for (const name of [...names].sort()) {
    const pairs = rounds.map((r) => [r.current.get(name), r.baseline.get(name)] as const)
    if (pairs.some(([c, b]) => c === undefined || b === undefined)) {
      unmatched.push(name)
      continue
    }
    const first = pairs[0]![0]!
    const lowerIsBetter = first.lowerIsBetter === true
    const current = pairs.map(([c]) => c!.value)
    const baseline = pairs.map(([, b]) => b!.value)
    const ratios = pairs.map(([c, b]) => {
      const [x, y] = lowerIsBetter ? [b!.value, c!.value] : [c!.value, b!.value]
      return y === 0 ? Number.NaN : round3(x / y)
    })
    const finite = ratios.filter(Number.isFinite)
    figures.push({
      name,
      unit: first.unit,
      lowerIsBetter,
      current,
      baseline,
      ratios,
      ratio:
        finite.length === 0
          ? { median: Number.NaN, min: Number.NaN, max: Number.NaN }
          : {
              median: round3(median(finite)),
              min: Math.min(...finite),
              max: Math.max(...finite),
            },
    })
  }
  return { figures, unmatched }
}

/** A comparison as a figure of its own, for bench/out or bench/results. */
export function comparisonResult(
  figure: FigureComparison,
  against: { sha: string; subject: string; ref: string },
  load: { start: number[]; end: number[] },
): BenchResult {
  const short = against.sha.slice(0, 7)
  return {
    name: `${figure.name}.against-${short}`,
    unit: figure.unit,
    value: median(figure.current),
    baseline: {
      name: `the same benchmark on ${short} (${against.subject})`,
      value: median(figure.baseline),
    },
    ratio: figure.ratio.median,
    ...(figure.lowerIsBetter ? { lowerIsBetter: true } : {}),
    params: { ref: against.ref, sha: against.sha, rounds: figure.ratios.length },
    extra: {
      roundRatios: figure.ratios,
      ratioMin: figure.ratio.min,
      ratioMax: figure.ratio.max,
      current: figure.current,
      baseline: figure.baseline,
      loadAverage: load,
      how: "each round runs this tree and the other build one after the other, alternating which goes first; both with this tree's benchmark code, the other build's @sd/* packages swapped in by bench/hooks/sd-packages-from.mjs",
    },
  }
}
