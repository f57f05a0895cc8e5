/**
 * Failure detectors in the simulator (`election.detector.*`): detection time of a crash and false
 * positives per node-hour of all-to-all heartbeats with a timeout (the classic detector, the
 * baseline), phi accrual on the same heartbeats, SWIM with Lifeguard, and a model of
 * node-discover's rule, under 0/1/5% loss and under simulated GC pauses, at n = 10, 100, 1,000,
 * each detector's knob swept to trace its trade-off curve. See bench/README.md.
 */
import type { SwimOptions } from '@sd/election'
import type { HeartbeatSetting } from './lib/detector-heartbeats.js'
import {
  type CurveRecord,
  curveResult,
  emptyPool,
  messagesResult,
  type Pooled,
  toPoint,
} from './lib/detector-results.js'
import {
  CONDITIONS,
  type Condition,
  type Plan,
  type RunOutcome,
  runHeartbeats,
  runSwim,
} from './lib/detector-run.js'
import type { BenchResult } from './lib/result.js'

const env = process.env
const list = (v: string | undefined, fallback: string) => (v ?? fallback).split(',')
const SIZES = list(env.SD_DETECTOR_N, '10,100,1000').map(Number)
const SEEDS = Number(env.SD_DETECTOR_SEEDS ?? 2)
/** Scales every steady window (the false-positive denominator): 0.1 for a quick look. */
const SCALE = Number(env.SD_DETECTOR_SCALE ?? 1)
const CONDITION_NAMES = list(env.SD_DETECTOR_CONDITIONS, CONDITIONS.map((c) => c.name).join(','))
const FAMILIES = list(env.SD_DETECTOR_FAMILIES, 'heartbeat,phi-fast,swim')

const INTERVAL_MS = 100
const HEARTBEAT_SETTINGS: HeartbeatSetting[] = [
  ...[200, 300, 500, 1000, 2000].map((timeoutMs) => ({
    family: 'heartbeat' as const,
    timeoutMs,
  })),
  ...[4, 8, 16].flatMap((threshold) =>
    [0, 400, 900].map((acceptablePauseMs) => ({
      family: 'phi' as const,
      threshold,
      acceptablePauseMs,
    })),
  ),
  // node-discover's hello interval is the heartbeats' 100 ms; its check interval 200 ms; node
  // timeout 500 ms (bench/src/election.bench.ts) and 2000 ms (its default).
  ...[500, 2000].map((timeoutMs) => ({
    family: 'node-discover' as const,
    checkMs: 200,
    timeoutMs,
  })),
]
/**
 * Phi on heartbeats four times as frequent, at n = 10 only (all-to-all at 25 ms costs 16x the
 * events at n = 100): where the fastest detection without false positives lies when messages are
 * cheap, the setting `election.failover.bully-phi` runs with (bench/src/election.bench.ts).
 */
const FAST_INTERVAL_MS = 25
const FAST_MAX_N = 10
const FAST_PHI_SETTINGS: HeartbeatSetting[] = [
  ...[175, 190, 200, 250, 300].map((acceptablePauseMs) => ({
    family: 'phi' as const,
    threshold: 8,
    acceptablePauseMs,
  })),
  ...[225, 250].map((acceptablePauseMs) => ({
    family: 'phi' as const,
    threshold: 4,
    acceptablePauseMs,
  })),
]
/**
 * The same heartbeats, phi with `localPauseMs` 0: a deadline found passed is looked at again 1 ms
 * later, after what waited behind the check (a paused watcher runs its late timers before the
 * heartbeats that came meanwhile, as an event loop after a GC pause: the false positives of the
 * points above). Its own run, so that the points above keep their figures (one lazy timer per
 * peer serves every setting of a run: more settings move when it fires).
 */
const FAST_PHI_LOCAL_PAUSE_SETTINGS: HeartbeatSetting[] = [50, 75, 100, 125, 150].map(
  (acceptablePauseMs) => ({
    family: 'phi' as const,
    threshold: 8,
    acceptablePauseMs,
    localPauseMs: 0,
  }),
)
/** SD_DETECTOR_SWIM=100:2,100:4 (periodMs:suspicionMult) sweeps only those, for a long run. */
const SWIM_SETTINGS: { periodMs: number; suspicionMult: number }[] =
  env.SD_DETECTOR_SWIM === undefined
    ? [100, 200, 500].flatMap((periodMs) =>
        [2, 4].map((suspicionMult) => ({ periodMs, suspicionMult })),
      )
    : list(env.SD_DETECTOR_SWIM, '').map((pair) => {
        const [periodMs, suspicionMult] = pair.split(':').map(Number)
        if (!(periodMs! > 0 && suspicionMult! > 0))
          throw new Error(`SD_DETECTOR_SWIM: not periodMs:mult: ${pair}`)
        return { periodMs: periodMs!, suspicionMult: suspicionMult! }
      })

/** Virtual durations: long steady windows where events are cheap, short ones at n = 1,000 all-to-all. */
function heartbeatPlan(n: number, seed: number): Plan {
  const steady = n <= 10 ? 600_000 : n <= 100 ? 60_000 : 1_000
  return {
    n,
    seed,
    warmMs: n >= 1000 ? 1_000 : 3_000,
    steadyMs: Math.max(1_000, Math.round(steady * SCALE)),
    crashes: n >= 1000 ? 1 : 5,
    // The slowest setting: 2 s timeout + a 200 ms check + pauses. At n = 1,000 (10^7 messages per
    // virtual second) one crash, given 2.5 s.
    gapMs: n >= 1000 ? 2_500 : 3_000,
    eventBudget: 400_000_000,
  }
}

function swimPlan(n: number, seed: number, s: { periodMs: number; suspicionMult: number }): Plan {
  const steady = n <= 100 ? 600_000 : 120_000
  // Longest suspicion (Lifeguard's max: 6 x the least) plus probing and gossip.
  const leastMs = s.suspicionMult * Math.max(1, Math.log10(n)) * s.periodMs
  return {
    n,
    seed,
    warmMs: 5_000,
    steadyMs: Math.max(5_000, Math.round(steady * SCALE)),
    crashes: 5,
    gapMs: Math.ceil(6 * leastMs + 30 * s.periodMs),
    eventBudget: 200_000_000,
  }
}

function pool(into: Pooled, out: RunOutcome, setting: number, death: number): void {
  const d = out.tracker.detections(death)
  into.detection.push(...d.ms)
  into.missed += d.missed
  into.suspicionEpisodes += out.tracker.counts[setting]!.episodes
  into.deathEpisodes += out.tracker.counts[death]!.episodes
  into.verdicts += out.tracker.counts[setting]!.verdicts
  into.nodeHours += out.nodeHours
  into.messages.push(out.messagesPerNodePerSecond)
  into.truncated ||= out.truncated
}

const WHAT = {
  heartbeat: `all-to-all heartbeats every ${INTERVAL_MS} ms, suspect after timeoutMs of silence (LeaderWatch's rule, every node watching every node)`,
  phi: `phi accrual (@sd/election's silenceForPhi; window 200, minStdDevMs 25, first estimate ${INTERVAL_MS} ms) on the same heartbeats`,
  'phi-25ms': `phi accrual as above on all-to-all heartbeats every ${FAST_INTERVAL_MS} ms (first estimate ${FAST_INTERVAL_MS} ms): 4x the messages`,
  'phi-25ms-local-pause': `phi accrual as above on all-to-all heartbeats every ${FAST_INTERVAL_MS} ms, localPauseMs 0: a deadline found passed is looked at again 1 ms later, after the backlog (once per heartbeat)`,
  'node-discover-model': `a model of node-discover's rule on the same heartbeats (hello ${INTERVAL_MS} ms, check every 200 ms, dropped past nodeTimeout): not the library`,
  swim: 'SWIM with Lifeguard (@sd/election swim(), defaults but periodMs and suspicionMult); detection = declared dead by every live node',
}

function heartbeatFamily(n: number, condition: Condition): CurveRecord[] {
  const pools = HEARTBEAT_SETTINGS.map(emptyPool)
  const runs: Record<string, unknown>[] = []
  for (let seed = 1; seed <= SEEDS; seed++) {
    const plan = heartbeatPlan(n, seed)
    const start = performance.now()
    // Every beat of the run fits in the phi window: at n = 1,000 the window cannot hold 200.
    const beats = Math.ceil((plan.warmMs + plan.steadyMs + plan.crashes * plan.gapMs) / INTERVAL_MS)
    const out = runHeartbeats(plan, condition, {
      intervalMs: INTERVAL_MS,
      settings: HEARTBEAT_SETTINGS,
      phiWindow: Math.min(200, beats + 2),
    })
    runs.push({ seed, ...runFacts('heartbeats', plan, out, start) })
    for (let i = 0; i < HEARTBEAT_SETTINGS.length; i++) pool(pools[i]!, out, i, i)
  }
  const byFamily = (family: HeartbeatSetting['family'], detector: keyof typeof WHAT) => ({
    detector,
    what: WHAT[detector],
    condition: condition.name,
    n,
    runs: { seeds: SEEDS, perSeed: runs },
    curve: HEARTBEAT_SETTINGS.flatMap((s, i) => {
      if (s.family !== family) return []
      const { family: _, ...knob } = s
      return [toPoint(knob, pools[i]!)]
    }),
  })
  return [
    byFamily('heartbeat', 'heartbeat'),
    byFamily('phi', 'phi'),
    byFamily('node-discover', 'node-discover-model'),
  ]
}

/** Phi on 25 ms heartbeats: its own run, as the heartbeats differ. */
function fastPhiFamily(
  n: number,
  condition: Condition,
  detector: 'phi-25ms' | 'phi-25ms-local-pause',
  settings: HeartbeatSetting[],
): CurveRecord {
  const pools = settings.map(emptyPool)
  const runs: Record<string, unknown>[] = []
  for (let seed = 1; seed <= SEEDS; seed++) {
    const plan = heartbeatPlan(n, seed)
    const start = performance.now()
    const out = runHeartbeats(plan, condition, {
      intervalMs: FAST_INTERVAL_MS,
      settings,
      phiWindow: 200,
    })
    runs.push({ seed, ...runFacts(`heartbeats every 25 ms (${detector})`, plan, out, start) })
    for (let i = 0; i < settings.length; i++) pool(pools[i]!, out, i, i)
  }
  return {
    detector,
    what: WHAT[detector],
    condition: condition.name,
    n,
    runs: { seeds: SEEDS, perSeed: runs },
    curve: settings.map((s, i) => {
      const { family: _, ...knob } = s
      return toPoint(knob, pools[i]!)
    }),
  }
}

function swimFamily(n: number, condition: Condition): CurveRecord {
  const runs: Record<string, unknown>[] = []
  const curve = SWIM_SETTINGS.map((s) => {
    const into = emptyPool()
    for (let seed = 1; seed <= SEEDS; seed++) {
      const plan = swimPlan(n, seed, s)
      const start = performance.now()
      const options: SwimOptions = { periodMs: s.periodMs, suspicionMult: s.suspicionMult }
      const out = runSwim(plan, condition, options)
      runs.push({ seed, ...s, ...runFacts(`swim ${JSON.stringify(s)}`, plan, out, start) })
      pool(into, out, 0, 1)
    }
    return toPoint({ ...s }, into)
  })
  return { detector: 'swim', what: WHAT.swim, condition: condition.name, n, curve, runs: { runs } }
}

function runFacts(label: string, plan: Plan, out: RunOutcome, start: number) {
  const wallMs = Math.round(performance.now() - start)
  console.error(
    `    ${label} n=${plan.n} seed ${plan.seed}: ${out.virtualMs / 1000} s virtual, ${out.events} events, ${wallMs / 1000} s${out.truncated ? ' (truncated: event budget)' : ''}`,
  )
  return {
    virtualMs: out.virtualMs,
    steadyMs: plan.steadyMs,
    crashes: plan.crashes,
    gapMs: plan.gapMs,
    events: out.events,
    truncated: out.truncated,
    wallMs,
  }
}

export default async function electionDetectorBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = []
  for (const n of SIZES) {
    for (const condition of CONDITIONS.filter((c) => CONDITION_NAMES.includes(c.name))) {
      const started = performance.now()
      const records: CurveRecord[] = []
      if (FAMILIES.includes('heartbeat')) records.push(...heartbeatFamily(n, condition))
      if (FAMILIES.includes('phi-fast') && n <= FAST_MAX_N) {
        records.push(fastPhiFamily(n, condition, 'phi-25ms', FAST_PHI_SETTINGS))
        records.push(
          fastPhiFamily(n, condition, 'phi-25ms-local-pause', FAST_PHI_LOCAL_PAUSE_SETTINGS),
        )
      }
      if (FAMILIES.includes('swim')) records.push(swimFamily(n, condition))
      const baseline = records.find((r) => r.detector === 'heartbeat')
      for (const rec of records) {
        results.push(curveResult(rec, rec === baseline ? undefined : baseline))
        if (condition.name === 'loss0' && n >= 100) {
          results.push(messagesResult(rec, rec === baseline ? undefined : baseline))
        }
      }
      console.error(
        `  n=${n} ${condition.name}: ${Math.round((performance.now() - started) / 1000)} s`,
      )
    }
  }
  return results
}
