/**
 * The failure-detector benchmark's figures: runs over seeds pooled into one point per detector
 * setting (detection median / p99, false positives per node-hour, messages per node per second),
 * the trade-off curve of each detector, and its operating point: the fastest setting whose false
 * positives stay at or under 1 per node-hour and that missed no crash.
 */
import { median, percentile } from './measure.js'
import type { BenchResult } from './result.js'

export const FP_TARGET_PER_NODE_HOUR = 1

export interface CurvePoint {
  /** The setting, as the detector's options name it. */
  knob: Record<string, number>
  detectionMs: { median: number | null; p99: number | null; samples: number[]; missed: number }
  /** Suspicions of live nodes per node-hour (episodes: by anyone, counted once). */
  suspicionsPerNodeHour: number
  /** Deaths (declared dead) of live nodes per node-hour; for detectors without a separate death, their suspicion. */
  deathsPerNodeHour: number
  /** Every observer's verdict on a live node, counted one by one, per node-hour. */
  verdictsPerNodeHour: number
  messagesPerNodePerSecond: number
  nodeHours: number
  truncated: boolean
}

export interface Pooled {
  detection: number[]
  missed: number
  suspicionEpisodes: number
  deathEpisodes: number
  verdicts: number
  nodeHours: number
  messages: number[]
  truncated: boolean
}

export const emptyPool = (): Pooled => ({
  detection: [],
  missed: 0,
  suspicionEpisodes: 0,
  deathEpisodes: 0,
  verdicts: 0,
  nodeHours: 0,
  messages: [],
  truncated: false,
})

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits

export function toPoint(knob: Record<string, number>, pool: Pooled): CurvePoint {
  const perHour = (x: number) => (pool.nodeHours > 0 ? round(x / pool.nodeHours) : 0)
  const has = pool.detection.length > 0
  return {
    knob,
    detectionMs: {
      median: has ? round(median(pool.detection), 1) : null,
      p99: has ? round(percentile(pool.detection, 99), 1) : null,
      samples: pool.detection.map((x) => round(x, 1)),
      missed: pool.missed,
    },
    suspicionsPerNodeHour: perHour(pool.suspicionEpisodes),
    deathsPerNodeHour: perHour(pool.deathEpisodes),
    verdictsPerNodeHour: perHour(pool.verdicts),
    messagesPerNodePerSecond: round(median(pool.messages), 2),
    nodeHours: round(pool.nodeHours, 4),
    truncated: pool.truncated,
  }
}

/** The fastest point whose deaths (the verdict that acts) are within the target and that missed nothing. */
export function operatingPoint(curve: readonly CurvePoint[]): CurvePoint | undefined {
  const ok = curve.filter(
    (p) =>
      p.deathsPerNodeHour <= FP_TARGET_PER_NODE_HOUR &&
      p.detectionMs.missed === 0 &&
      p.detectionMs.median !== null,
  )
  return ok.sort((a, b) => a.detectionMs.median! - b.detectionMs.median!)[0]
}

export interface CurveRecord {
  detector: string
  /** What the detector is, in a line (the JSON's reader has nothing else). */
  what: string
  condition: string
  n: number
  curve: CurvePoint[]
  /** Per-run facts: virtual duration, events, wall time, seeds. */
  runs: Record<string, unknown>
}

/**
 * One figure per detector, condition and size: value = the operating point's median detection
 * time; baseline = all-to-all heartbeats with a timeout at theirs (the classic detector).
 */
export function curveResult(rec: CurveRecord, baseline?: CurveRecord): BenchResult {
  const op = operatingPoint(rec.curve)
  const fallback = [...rec.curve].sort((a, b) => a.deathsPerNodeHour - b.deathsPerNodeHour)[0]!
  const chosen = op ?? fallback
  const baseOp = baseline ? operatingPoint(baseline.curve) : undefined
  const result: BenchResult = {
    name: `election.detector.${rec.detector}.${rec.condition}.n${rec.n}`,
    unit: 'ms to detect a crash (median)',
    value: chosen.detectionMs.median ?? -1,
    lowerIsBetter: true,
    params: {
      detector: rec.what,
      condition: rec.condition,
      n: rec.n,
      knob: chosen.knob,
      meetsFalsePositiveTarget: op !== undefined,
      falsePositiveTargetPerNodeHour: FP_TARGET_PER_NODE_HOUR,
    },
    extra: {
      detectionP99Ms: chosen.detectionMs.p99,
      suspicionsPerNodeHour: chosen.suspicionsPerNodeHour,
      deathsPerNodeHour: chosen.deathsPerNodeHour,
      messagesPerNodePerSecond: chosen.messagesPerNodePerSecond,
      curve: rec.curve,
      runs: rec.runs,
    },
  }
  if (baseline && baseOp && baseOp.detectionMs.median !== null && chosen.detectionMs.median) {
    result.baseline = {
      name: `all-to-all heartbeats, timeout ${baseOp.knob.timeoutMs} ms (the classic detector)`,
      value: baseOp.detectionMs.median,
    }
  }
  return result
}

/** Messages per node per second of a detector at size n (no loss), against all-to-all heartbeats. */
export function messagesResult(rec: CurveRecord, baseline?: CurveRecord): BenchResult {
  const perSetting = rec.curve.map((p) => ({
    knob: p.knob,
    messagesPerNodePerSecond: p.messagesPerNodePerSecond,
  }))
  const value = Math.max(...rec.curve.map((p) => p.messagesPerNodePerSecond))
  const result: BenchResult = {
    name: `election.detector.${rec.detector}.messages.n${rec.n}`,
    unit: 'messages/node/s (most of any setting)',
    value,
    lowerIsBetter: true,
    params: { detector: rec.what, condition: rec.condition, n: rec.n },
    extra: { perSetting },
  }
  if (baseline) {
    result.baseline = {
      name: 'all-to-all heartbeats (every node to every node)',
      value: baseline.curve[0]!.messagesPerNodePerSecond,
    }
  }
  return result
}
