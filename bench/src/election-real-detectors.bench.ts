/**
 * Failure detectors between real processes (`election.detector.real.*`): the simulator sweep's
 * operating points (bench/src/election-detector.bench.ts) run by 5 OS processes over UDP, one per
 * network namespace, nftables dropping 0, 1 or 5% of the packets, or each process blocking its
 * own event loop 50-200 ms every 2-6 s. Detection time of a SIGKILL and false positives per
 * node-hour of the heartbeat timeout, phi accrual, SWIM and a model of node-discover's rule.
 * See bench/README.md.
 */
import { fileURLToPath } from 'node:url'
import { createRandom } from '@sd/transport'
import { netnsUnavailable } from '../../test-support/netns-hosts.js'
import type { HeartbeatSetting } from './lib/detector-heartbeats.js'
import type { SettingVerdicts } from './lib/detector-real-judge.js'
import { runRealTrial } from './lib/detector-real-trial.js'
import { CONDITIONS } from './lib/detector-run.js'
import { median, percentile } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const env = process.env
const N = 5
const TRIALS = Number(env.SD_DETECTOR_REAL_TRIALS ?? 2)
const STEADY_MS = Number(env.SD_DETECTOR_REAL_STEADY_MS ?? 30_000)
const CONDITION_NAMES = (
  env.SD_DETECTOR_REAL_CONDITIONS ?? CONDITIONS.map((c) => c.name).join(',')
).split(',')
const WARM_MS = 5_000
/** SWIM's slowest declaration (Lifeguard's 6 x 400 ms suspicion) plus probing: the sim's gap. */
const GAP_MS = 6_000

/** The simulator's operating points at n = 10/100 (bench/README.md, the detector section). */
const SETTINGS: HeartbeatSetting[] = [
  { family: 'heartbeat', timeoutMs: 500 },
  { family: 'phi', threshold: 4, acceptablePauseMs: 400 },
  { family: 'node-discover', checkMs: 200, timeoutMs: 500 },
]
const SWIM = { periodMs: 100, suspicionMult: 4 }
const SWIM_SUSPECT = SETTINGS.length
const SWIM_DEAD = SETTINGS.length + 1

const DETECTORS = [
  {
    name: 'heartbeat',
    setting: 0,
    fp: [0],
    what: 'all-to-all heartbeats every 100 ms, suspect after 500 ms of silence',
  },
  {
    name: 'phi',
    setting: 1,
    fp: [1],
    what: 'phi accrual on the same heartbeats (threshold 4, acceptablePauseMs 400, window 200, minStdDevMs 25)',
  },
  {
    name: 'node-discover-model',
    setting: 2,
    fp: [2],
    what: "a model of node-discover's rule on the same heartbeats (check every 200 ms, nodeTimeout 500 ms): not the library",
  },
  {
    name: 'swim',
    setting: SWIM_DEAD,
    fp: [SWIM_SUSPECT, SWIM_DEAD],
    what: '@sd/election swim() with Lifeguard, periodMs 100, suspicionMult 4; detection = declared dead by every live process',
  },
] as const

const round1 = (x: number) => Math.round(x * 10) / 10

export default async function electionDetectorRealBench(): Promise<BenchResult[]> {
  const unavailable = netnsUnavailable()
  if (unavailable || TRIALS <= 0) {
    console.error(`  skipped: ${unavailable ?? 'SD_DETECTOR_REAL_TRIALS=0'}`)
    return []
  }
  // The workers run as the benchmark does: @sd/* from the built packages.
  process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL('../tsconfig.run.json', import.meta.url))
  const results: BenchResult[] = []
  for (const condition of CONDITIONS.filter((c) => CONDITION_NAMES.includes(c.name))) {
    const trials: {
      verdicts: SettingVerdicts[]
      steadyMs: number
      victim: number
      pauses: number
    }[] = []
    let failed = 0
    for (let trial = 1; trial <= TRIALS; trial++) {
      const seed = `detector-real/${condition.name}/${trial}`
      const victim = createRandom(seed).int(0, N - 1)
      const started = performance.now()
      try {
        const out = await runRealTrial({
          n: N,
          lossPercent: condition.loss * 100,
          warmMs: WARM_MS,
          steadyMs: STEADY_MS,
          gapMs: GAP_MS,
          victim,
          seed,
          worker: {
            hbPort: 47_400,
            swimPort: 47_401,
            intervalMs: 100,
            settings: SETTINGS,
            swim: SWIM,
            swimSettings: { suspect: SWIM_SUSPECT, dead: SWIM_DEAD },
            pauses: condition.pauses,
          },
        })
        trials.push({ ...out, victim })
      } catch (e) {
        failed += 1
        console.error(`  ${condition.name} trial ${trial} failed: ${(e as Error).message}`)
      }
      console.error(
        `  ${condition.name} trial ${trial}: ${Math.round((performance.now() - started) / 1000)} s`,
      )
    }
    // Every process watches during the steady window: the sim's denominator (n x window).
    const nodeHours = trials.reduce((h, t) => h + (N * t.steadyMs) / 3_600_000, 0)
    const heartbeatMedian = round1(
      median(trials.flatMap((t) => t.verdicts[0]!.detectionMs ?? []).map(round1)),
    )
    for (const d of DETECTORS) {
      const samples = trials.flatMap((t) => t.verdicts[d.setting]!.detectionMs ?? []).map(round1)
      const mid = samples.length > 0 ? round1(median(samples)) : null
      const episodes = d.fp.map((s) => trials.reduce((sum, t) => sum + t.verdicts[s]!.episodes, 0))
      const verdicts = trials.reduce((sum, t) => sum + t.verdicts[d.fp[0]]!.verdicts, 0)
      const perNodeHour = (x: number) => (nodeHours > 0 ? round1(x / nodeHours) : null)
      results.push({
        name: `election.detector.real.${d.name}.${condition.name}.n${N}`,
        unit: 'ms',
        value: mid ?? Number.NaN,
        lowerIsBetter: true,
        ...(d.name === 'heartbeat' || Number.isNaN(heartbeatMedian)
          ? {}
          : {
              baseline: {
                name: 'heartbeat timeout 500 ms (same processes)',
                value: heartbeatMedian,
              },
            }),
        params: {
          n: N,
          condition: condition.name,
          lossPercent: condition.loss * 100,
          pauses: condition.pauses,
          trials: TRIALS,
          steadyMs: STEADY_MS,
          warmMs: WARM_MS,
          gapMs: GAP_MS,
        },
        extra: {
          what: d.what,
          detectionMs: {
            median: mid,
            // Over so few trials, p99 is the slowest trial.
            p99: samples.length > 0 ? round1(percentile(samples, 99)) : null,
            samples,
          },
          missed: trials.length - samples.length,
          failedTrials: failed,
          victims: trials.map((t) => t.victim),
          pausesPerTrial: trials.map((t) => t.pauses),
          falsePositives: {
            // SWIM: suspicion episodes, then death episodes.
            episodes: d.fp.length === 1 ? episodes[0] : { suspect: episodes[0], dead: episodes[1] },
            verdicts,
            perNodeHour: d.fp.length === 1 ? perNodeHour(episodes[0]!) : perNodeHour(episodes[1]!),
            suspicionsPerNodeHour: perNodeHour(episodes[0]!),
            nodeHours: Math.round(nodeHours * 10_000) / 10_000,
          },
          measured:
            'detection: from the SIGKILL (the parent stamps it on the workers clock) until every live process held the verdict on it; false positives: episodes (a live process nobody held a verdict on gets one) in the steady window before the kill',
          notes: `real processes (bench/src/lib/detector-real-worker.ts), one per network namespace on one bridge, UDP unreliable mode, nftables loss on every ingress; a machine shared with other work (2 cores; loadAverage says how busy): timer lateness is part of the figures. The false-positive rate is coarse: ${TRIALS} trials x ${STEADY_MS / 1000} s x ${N} processes = ${round1(nodeHours * 3600)} node-seconds, so one episode is ${nodeHours > 0 ? round1(1 / nodeHours) : '-'} per node-hour.`,
        },
      })
    }
  }
  return results
}
