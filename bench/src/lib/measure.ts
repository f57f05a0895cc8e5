export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export interface RateOptions {
  /** Samples taken; the median is reported. Default 7. */
  samples?: number
  /** Each sample repeats `batch` until at least this long. Default 150 ms. */
  minSampleMs?: number
}

/**
 * Operations per second of `batch` (which performs and returns a number of operations),
 * as the median of several timed samples after a warm-up. Beside the wall-time rates, the rates
 * by the process's CPU time over the same samples (`cpuMedian`, `cpuSamples`): on a shared
 * machine the wall time counts the waits for a core, the CPU time only what the batch cost
 * (the garbage collector's helper threads included).
 */
export function opsPerSecond(
  batch: () => number,
  options: RateOptions = {},
): { median: number; samples: number[]; cpuMedian: number; cpuSamples: number[] } {
  const samples = options.samples ?? 7
  const minMs = options.minSampleMs ?? 150
  for (let warm = performance.now(); performance.now() - warm < minMs; ) batch()
  const rates: number[] = []
  const cpuRates: number[] = []
  for (let s = 0; s < samples; s++) {
    let ops = 0
    const cpuStart = process.cpuUsage()
    const start = performance.now()
    let elapsed = 0
    while (elapsed < minMs) {
      ops += batch()
      elapsed = performance.now() - start
    }
    const cpu = process.cpuUsage(cpuStart)
    rates.push((ops * 1000) / elapsed)
    cpuRates.push((ops * 1e6) / (cpu.user + cpu.system))
  }
  return {
    median: median(rates),
    samples: rates,
    cpuMedian: median(cpuRates),
    cpuSamples: cpuRates,
  }
}

/** Two contenders' rates measured side by side: each one's median and samples, by wall and CPU time. */
export interface PairedRates {
  a: number
  b: number
  aSamples: number[]
  bSamples: number[]
  /** By the process's CPU time over the same samples (see `opsPerSecond`). */
  aCpu: number
  bCpu: number
  aCpuSamples: number[]
  bCpuSamples: number[]
}

/**
 * Interleaves two contenders sample by sample (A, B, A, B...) so that noise on a shared machine
 * hits both alike. Returns each one's median ops/s, by wall time and by CPU time, from one pass.
 */
export function compareRates(
  a: () => number,
  b: () => number,
  options: RateOptions = {},
): PairedRates {
  const samples = options.samples ?? 7
  const aRuns: ReturnType<typeof opsPerSecond>[] = []
  const bRuns: ReturnType<typeof opsPerSecond>[] = []
  for (let s = 0; s < samples; s++) {
    aRuns.push(opsPerSecond(a, { ...options, samples: 1 }))
    bRuns.push(opsPerSecond(b, { ...options, samples: 1 }))
  }
  const aSamples = aRuns.map((r) => r.median)
  const bSamples = bRuns.map((r) => r.median)
  const aCpuSamples = aRuns.map((r) => r.cpuMedian)
  const bCpuSamples = bRuns.map((r) => r.cpuMedian)
  return {
    a: median(aSamples),
    b: median(bSamples),
    aSamples,
    bSamples,
    aCpu: median(aCpuSamples),
    bCpu: median(bCpuSamples),
    aCpuSamples,
    bCpuSamples,
  }
}
