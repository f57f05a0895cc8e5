/**
 * The agreed membership in the simulator (`election.membership.*`): how long a join, a graceful
 * leave and the removal of a crashed member take until every member installed the agreed view,
 * beside SWIM alone in the same runs (until every member's SWIM view had the change: the
 * eventually consistent view the agreed one is decided on top of). n = 5 and 10 founders, 0% and
 * 5% loss, the median over seeds. See bench/README.md.
 */
import { fileURLToPath } from 'node:url'
import { netnsUnavailable } from '../../test-support/netns-hosts.js'
import { median, percentile } from './lib/measure.js'
import { type RealChange, type RealTrial, realTrial } from './lib/membership-real.js'
import {
  type Change,
  type MembershipRunOutcome,
  type MembershipSettings,
  runMembership,
} from './lib/membership-sim.js'
import type { BenchResult } from './lib/result.js'

const env = process.env
const SIZES = (env.SD_MEMBERSHIP_N ?? '5,10').split(',').map(Number)
const LOSSES = (env.SD_MEMBERSHIP_LOSS ?? '0,5').split(',').map(Number)
const SEEDS = Number(env.SD_MEMBERSHIP_SEEDS ?? 20)
/** Trials of the real-process scenario (0: none). */
const REAL_TRIALS = Number(env.SD_MEMBERSHIP_REAL_TRIALS ?? 5)
const REAL_LOSS = 5

/**
 * The real processes' settings: the test's (a 1.5 s election timeout, SWIM every 250 ms), which
 * a machine shared with other work does not upset.
 */
const REAL_SETTINGS = {
  heartbeat: { intervalMs: 100, timeoutMs: 1500 },
  swim: { periodMs: 250, probeTimeoutMs: 100 },
  retryMs: 250,
}

/** A deployment's settings: the election's 100/500 ms heartbeat, SWIM's and the membership's defaults. */
const SETTINGS: MembershipSettings = {
  heartbeat: { intervalMs: 100, timeoutMs: 500 },
  swim: { periodMs: 200, probeTimeoutMs: 60 },
  retryMs: 250,
}

const CAUSE: Record<Change, string> = {
  join: 'from the joiner starting (it asks the founders) until every member, the joiner included, had the view with it',
  leave:
    'agreed: from the leave request until every remaining member had the view without the leaver; SWIM: from its leave announcement (requested after the agreed leave, as the README orders it) until every SWIM view dropped it',
  removal:
    'from the crash (a founder that does not lead) until every remaining member had the view without it: SWIM detection (suspicion, Lifeguard timeouts) plus one agreed change',
}

const round1 = (x: number) => Math.round(x * 10) / 10
function stats(samples: number[]) {
  if (samples.length === 0) return { median: null, p90: null, min: null, max: null, samples }
  return {
    median: round1(median(samples)),
    p90: round1(percentile(samples, 90)),
    min: round1(Math.min(...samples)),
    max: round1(Math.max(...samples)),
    samples: samples.map(round1),
  }
}

const REAL_CAUSE: Record<RealChange, string> = {
  join: "from the joiner's first line (its transport bound) until every process had the view with it",
  leave:
    "agreed: from the parent's leave request until every remaining process had the view without the leaver; SWIM: from the leaver's `left` (it then announces its SWIM leave) until every SWIM view dropped it",
  removal: 'from the SIGKILL until every remaining process had the view without the killed one',
  rejoin:
    "from the new incarnation's first line until every process had the view with it again (it must be admitted anew: its membership state is gone)",
}

async function realProcesses(): Promise<BenchResult[]> {
  const unavailable = netnsUnavailable()
  if (REAL_TRIALS <= 0 || unavailable) {
    console.error(`  real processes skipped: ${unavailable ?? 'SD_MEMBERSHIP_REAL_TRIALS=0'}`)
    return []
  }
  // The workers run as the benchmark does: @sd/* from the built packages.
  process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL('../tsconfig.run.json', import.meta.url))
  const trials: RealTrial[] = []
  let failed = 0
  for (let i = 0; i < REAL_TRIALS; i++) {
    try {
      trials.push(
        await realTrial({
          tag: 'sdmb',
          subnet: 215,
          port: 47_300,
          lossPercent: REAL_LOSS,
          ...REAL_SETTINGS,
          stepMs: 60_000,
        }),
      )
    } catch (e) {
      failed += 1
      console.error(`  real trial ${i + 1} failed: ${(e as Error).message}`)
    }
  }
  return (['join', 'leave', 'removal', 'rejoin'] as const).map((change) => {
    const a = stats(trials.map((t) => t.agreed[change]).filter(Number.isFinite))
    const s = stats(trials.map((t) => t.swim[change]).filter(Number.isFinite))
    return {
      name: `election.membership.real.${change}.loss${REAL_LOSS}.n5`,
      unit: 'ms',
      value: a.median ?? Number.NaN,
      lowerIsBetter: true,
      ...(s.median === null
        ? {}
        : { baseline: { name: 'SWIM alone (its own view, same processes)', value: s.median } }),
      params: {
        founders: 5,
        processes: 6,
        lossPercent: REAL_LOSS,
        trials: REAL_TRIALS,
        settings: REAL_SETTINGS,
      },
      extra: {
        measured: REAL_CAUSE[change],
        agreedMs: a,
        swimMs: s,
        failedTrials: failed,
        what: 'test-support/membership-worker.ts: one process per network namespace on one bridge, UDP (createUdpTransport, reliable links), nftables dropping 5% of the packets entering each host',
        notes:
          'real processes on a machine shared with other work (2 cores): the figures include its load and vary from run to run; medians over trials.',
      },
    }
  })
}

export default async function electionMembershipBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = await realProcesses()
  for (const n of SIZES) {
    for (const loss of LOSSES) {
      const started = performance.now()
      const runs: MembershipRunOutcome[] = []
      for (let seed = 1; seed <= SEEDS; seed++) {
        runs.push(runMembership({ n, seed, loss: loss / 100, settings: SETTINGS }))
      }
      const wallMs = Math.round(performance.now() - started)
      console.error(`  n=${n} loss ${loss}%: ${SEEDS} runs, ${wallMs / 1000} s`)
      for (const change of ['join', 'leave', 'removal'] as const) {
        const agreed = runs.flatMap((r) =>
          r.agreed[change] === undefined ? [] : [r.agreed[change]],
        )
        const swim = runs.flatMap((r) => (r.swim[change] === undefined ? [] : [r.swim[change]]))
        const missed = runs.filter((r) => r.missed.includes(change)).length
        const a = stats(agreed)
        const s = stats(swim)
        results.push({
          name: `election.membership.${change}.loss${loss}.n${n}`,
          unit: 'ms',
          value: a.median ?? Number.NaN,
          lowerIsBetter: true,
          ...(s.median === null
            ? {}
            : { baseline: { name: 'SWIM alone (its own view, same runs)', value: s.median } }),
          params: { n, lossPercent: loss, seeds: SEEDS, settings: SETTINGS },
          extra: {
            measured: CAUSE[change],
            agreedMs: a,
            swimMs: s,
            missed,
            wallMs,
            what: 'agreedMembership + majorityElection({ awaitView: true }) + swim(), composed on every node, SWIM dead verdicts wired to remove; n founders then one joiner',
            notes:
              'simulator (latency uniform 1-5 ms, loss dropped outright, no retransmission by the link): virtual time, so the figures do not depend on the machine, which is shared with other work; medians over seeds. Ratio: SWIM alone / agreed (below 1: the agreed view costs that much more).',
          },
        })
      }
    }
  }
  return results
}
