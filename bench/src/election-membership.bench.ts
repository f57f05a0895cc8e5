/**
 * The agreed membership in the simulator (`election.membership.*`): how long a join, a graceful
 * leave and the removal of a crashed member take until every member installed the agreed view,
 * beside SWIM alone in the same runs (until every member's SWIM view had the change: the
 * eventually consistent view the agreed one is decided on top of). n = 5 and 10 founders, 0% and
 * 5% loss, the median over seeds. See bench/README.md.
 */
import { median, percentile } from './lib/measure.js'
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

export default async function electionMembershipBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = []
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
