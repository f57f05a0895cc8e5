import type { NodeId } from '@sd/transport'

export interface Estimate {
  node: NodeId
  /** The node's clock minus the master's (ms). */
  offsetMs: number
  /** How far that estimate may be from the truth (half the round trip, less the known minimum). */
  uncertaintyMs: number
}

export interface FaultTolerantAverage {
  /**
   * The average of the kept offsets, relative to the master's clock; undefined when no offset lies
   * within the threshold of the median (two clocks far apart, and nothing in between): then no
   * clock can be trusted to set the others.
   */
  averageMs: number | undefined
  kept: NodeId[]
  /** Offsets farther than the threshold from the median: left out of the average. */
  ignored: NodeId[]
  median: number
}

/**
 * The fault-tolerant average of Berkeley: the mean of the offsets within `thresholdMs` of their
 * median. The median stands while fewer than half the clocks are wrong, so a few clocks far off
 * (or lying) cannot drag the group's time.
 */
export function faultTolerantAverage(
  estimates: readonly Estimate[],
  thresholdMs: number,
): FaultTolerantAverage {
  if (estimates.length === 0) throw new RangeError('no estimates to average')
  const sorted = estimates.map((e) => e.offsetMs).sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  const kept: NodeId[] = []
  const ignored: NodeId[] = []
  let sum = 0
  for (const e of estimates) {
    if (Math.abs(e.offsetMs - median) <= thresholdMs) {
      kept.push(e.node)
      sum += e.offsetMs
    } else ignored.push(e.node)
  }
  return { averageMs: kept.length === 0 ? undefined : sum / kept.length, kept, ignored, median }
}
