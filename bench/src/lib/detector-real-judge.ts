/**
 * Judges one real-process trial of the failure-detector benchmark from the workers' verdict lines:
 * they are replayed in time order into the simulator bench's VerdictTracker, the SIGKILL at its
 * moment, so that a false positive (an episode: a live node nobody held a verdict on gets one)
 * and a detection (every live observer holds the verdict on the killed node) mean exactly what
 * they mean in the simulator.
 */
import { VerdictTracker } from './detector-verdicts.js'

/** One worker line: at `t`, observer `o`'s verdict of setting `s` on target `x` became `on`. */
export interface VerdictLine {
  t: number
  s: number
  o: number
  x: number
  on: boolean
}

export interface TrialPlan {
  n: number
  settings: number
  /** The steady window, on the workers' clock: false positives count inside it. */
  steady: { from: number; to: number }
  victim: number
  killAt: number
}

export interface SettingVerdicts {
  /** ms from the kill until every live observer held the verdict; undefined: never in the run. */
  detectionMs: number | undefined
  /** False-positive episodes and verdicts in the steady window. */
  episodes: number
  verdicts: number
}

/** Parses a worker's stdout lines (other lines, such as READY, are skipped). */
export function verdictLines(lines: readonly string[]): VerdictLine[] {
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as VerdictLine)
}

export function judgeTrial(lines: readonly VerdictLine[], plan: TrialPlan): SettingVerdicts[] {
  let clock = Number.NEGATIVE_INFINITY
  const tracker = new VerdictTracker(plan.n, plan.settings, () => clock)
  tracker.window = plan.steady
  // Stable on ties: one observer's lines keep the order it printed them in.
  const sorted = lines.map((l, i) => ({ l, i })).sort((a, b) => a.l.t - b.l.t || a.i - b.i)
  let killed = false
  for (const { l } of sorted) {
    if (!killed && l.t >= plan.killAt) {
      clock = plan.killAt
      tracker.crash(plan.victim)
      killed = true
    }
    clock = l.t
    tracker.set(l.s, l.o, l.x, l.on)
  }
  if (!killed) {
    clock = plan.killAt
    tracker.crash(plan.victim)
  }
  return tracker.counts.map((c, s) => ({
    detectionMs: tracker.detections(s).ms[0],
    episodes: c.episodes,
    verdicts: c.verdicts,
  }))
}
