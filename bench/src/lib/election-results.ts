/** Turns the election benchmark's runs into result figures, keeping every run's numbers. */

import type { FailoverPhases } from './election-phases.js'
import type { Contender, ElectionSettings } from './election-protocol.js'
import type { FailoverRun, PartitionRun } from './election-trials.js'
import { median } from './measure.js'
import { type BenchResult, type RatioSpread, spreadOf } from './result.js'

const round1 = (x: number) => Math.round(x * 10) / 10
const round3 = (x: number) => Math.round(x * 1000) / 1000

export interface ElectionSetup {
  repeats: number
  settings: ElectionSettings
  settleMs: number
  agreeTimeoutMs: number
  partitionMs: number
  cut: 'leader' | 'follower'
}

export function describeSettings(s: ElectionSettings) {
  return {
    ours: {
      heartbeat: { intervalMs: s.helloIntervalMs, timeoutMs: s.nodeTimeoutMs },
      transport: 'createUdpTransport, default options (reliable, no key)',
      api: 'createElection({ transport, algorithm, members })',
    },
    nodeDiscover: {
      helloInterval: s.helloIntervalMs,
      checkInterval: s.checkIntervalMs,
      nodeTimeout: s.nodeTimeoutMs,
      masterTimeout: s.masterTimeoutMs,
      unicast: 'the two other nodes',
      weight: 'the digit of the node id (n3 = 3 wins, as the highest id wins the bully)',
      reuseAddr: false,
    },
  }
}

const baselineName = (s: ElectionSettings) =>
  `node-discover 1.2.1 (${s.helloIntervalMs}/${s.checkIntervalMs}/${s.nodeTimeoutMs}/${s.masterTimeoutMs} ms)`

export const algorithmName: Record<Exclude<Contender, 'node-discover'>, string> = {
  bully: 'bully({ heartbeat })',
  'bully-phi':
    'bully({ heartbeat: { intervalMs: phi.heartbeatIntervalMs, timeoutMs, detector: { phi } }, trustDetector })',
  majority: 'majorityElection({ heartbeat })',
  'majority-no-prevote': 'majorityElection({ heartbeat, preVote: false })',
}

/** Why `bully-phi` runs at these phi knobs (bench/README.md, "Leader election against node-discover"). */
const phiChoice =
  'the fastest phi setting of the simulator sweep (election.detector.phi.*, heartbeats every 100 ' +
  'ms; election.detector.phi-25ms.* and phi-25ms-local-pause.*, every 25 ms) with no more false ' +
  'positives per node-hour than the node-discover model at 100/200/500 ms (none) under every ' +
  'condition (0%, 1%, 5% loss, pauses of 50 to 200 ms); its heartbeats cost 4x the messages of ' +
  "node-discover's hellos"

/** Median, extremes and the samples themselves, or nulls without samples. */
function stats(samples: number[]) {
  if (samples.length === 0) return { median: null, min: null, max: null, samples }
  return {
    median: round1(median(samples)),
    min: round1(Math.min(...samples)),
    max: round1(Math.max(...samples)),
    samples: samples.map(round1),
  }
}

/** ours / theirs, lower is better; 0 when ours is 0 and theirs is not; none when theirs is 0. */
function ratio(ours: number, theirs: number): number | undefined {
  if (!(theirs > 0)) return undefined
  return round3(ours / theirs)
}

/**
 * ours / theirs repeat by repeat (each repeat ran every contender once, rotated), over the repeats
 * where both sides measured: the same orientation as these figures' `ratio`.
 */
function perRepeat<R>(
  mine: R[],
  theirs: R[],
  pick: (run: R) => number | undefined,
): RatioSpread | undefined {
  const value: number[] = []
  const baseline: number[] = []
  for (let i = 0; i < Math.min(mine.length, theirs.length); i++) {
    const a = pick(mine[i]!)
    const b = pick(theirs[i]!)
    if (a === undefined || b === undefined) continue
    value.push(a)
    baseline.push(b)
  }
  return spreadOf({ value, baseline }, false)
}

const failoverMsOf = (r: FailoverRun) => (r.ok ? r.failoverMs : undefined)

function failoverSide(runs: FailoverRun[]) {
  const ok = runs.filter((r) => r.ok && r.failoverMs !== undefined)
  return {
    ...stats(ok.map((r) => r.failoverMs!)),
    runs: runs.length,
    failed: runs.length - ok.length,
    errors: runs.flatMap((r) => (r.error ? [r.error] : [])),
    firstClaimMs: stats(ok.flatMap((r) => (r.firstClaimMs === undefined ? [] : [r.firstClaimMs])))
      .median,
    runsWithTwoLeaders: runs.filter((r) => (r.twoLeadersMs ?? 0) > 0).length,
    flapped: ok.filter((r) => r.flapped).length,
    ...(ok.some((r) => r.phases) && { phases: phaseMedians(ok) }),
  }
}

/** Ours: the median of each phase of the failover (election-phases.ts), over the runs that had it. */
function phaseMedians(ok: FailoverRun[]) {
  const of = (pick: (p: FailoverPhases) => number | undefined) =>
    stats(ok.flatMap((r) => (r.phases && pick(r.phases) !== undefined ? [pick(r.phases)!] : [])))
      .median
  return {
    firstSuspectMs: of((p) => p.firstSuspectMs),
    lastSuspectMs: of((p) => p.lastSuspectMs),
    winnerSuspectMs: of((p) => p.winnerSuspectMs),
    electionMs: of((p) => p.electionMs),
    acceptMs: of((p) => p.acceptMs),
  }
}

const detailFailover = (r: FailoverRun) => ({
  ...r,
  failoverMs: r.failoverMs === undefined ? undefined : round1(r.failoverMs),
  firstClaimMs: r.firstClaimMs === undefined ? undefined : round1(r.firstClaimMs),
  twoLeadersMs: r.twoLeadersMs === undefined ? undefined : round1(r.twoLeadersMs),
})

export function failoverResults(runs: FailoverRun[], setup: ElectionSetup): BenchResult[] {
  const theirRuns = runs.filter((r) => r.contender === 'node-discover')
  const theirs = failoverSide(theirRuns)
  const results: BenchResult[] = []
  for (const contender of ['bully', 'bully-phi', 'majority'] as const) {
    const mine = runs.filter((r) => r.contender === contender)
    if (mine.length === 0) continue
    const ours = failoverSide(mine)
    const ratios = perRepeat(mine, theirRuns, failoverMsOf)
    const phi =
      contender === 'bully-phi'
        ? { phi: setup.settings.phi, phiChoice, goal: 'ratio at most 0.5' }
        : {}
    if (ours.median === null) continue
    results.push({
      name: `election.failover.${contender}`,
      unit: 'ms',
      value: ours.median,
      lowerIsBetter: true,
      ...(theirs.median === null
        ? {}
        : {
            baseline: { name: baselineName(setup.settings), value: theirs.median },
            ratio: ratio(ours.median, theirs.median),
            ...(ratios && { ratios }),
          }),
      params: {
        what: 'SIGKILL of the leader process to every survivor following one new leader (3 processes, loopback)',
        algorithm: algorithmName[contender],
        nodes: 3,
        repeats: setup.repeats,
        settings: describeSettings(setup.settings),
        settleMs: setup.settleMs,
        timeoutMs: setup.agreeTimeoutMs,
        ratio: 'ours / node-discover (medians); below 1 is faster',
        ...phi,
        ours,
        baseline: theirs,
      },
      extra: {
        runs: mine.map(detailFailover),
        baselineRuns: runs.filter((r) => r.contender === 'node-discover').map(detailFailover),
      },
    })
  }
  return results
}

function partitionSide(runs: PartitionRun[]) {
  const measured = runs.filter((r) => r.twoLeadersMs !== undefined)
  const heals = measured.flatMap((r) => (r.healMs === undefined ? [] : [r.healMs]))
  return {
    ...stats(measured.map((r) => r.twoLeadersMs!)),
    runs: runs.length,
    /** No first agreement (not measured), or no agreement within the time allowed after the heal. */
    failed: runs.filter((r) => !r.ok).length,
    notMeasured: runs.length - measured.length,
    errors: runs.flatMap((r) => (r.error ? [r.error] : [])),
    runsWithTwoLeaders: measured.filter((r) => r.twoLeadersMs! > 0).length,
    divergentMs: stats(measured.map((r) => r.divergentMs!)).median,
    majorityLeaderAtHeal: measured.filter((r) => r.majorityLeaderAtHeal).length,
    majorityLeaderlessMs: stats(measured.map((r) => r.majorityLeaderlessMs!)).median,
    minorityLeaderAtHeal: measured.filter((r) => r.minorityLeaderAtHeal).length,
    stepDownMs: stats(measured.flatMap((r) => (r.stepDownMs === undefined ? [] : [r.stepDownMs])))
      .median,
    healMs: heals.length > 0 ? round1(median(heals)) : null,
  }
}

const detailPartition = (r: PartitionRun) => {
  const out: Record<string, unknown> = { ...r }
  for (const key of [
    'twoLeadersMs',
    'divergentMs',
    'majorityLeaderlessMs',
    'stepDownMs',
    'healMs',
  ] as const) {
    if (r[key] !== undefined) out[key] = round1(r[key])
  }
  return out
}

export function partitionResults(runs: PartitionRun[], setup: ElectionSetup): BenchResult[] {
  const theirRuns = runs.filter((r) => r.contender === 'node-discover')
  const theirs = partitionSide(theirRuns)
  const results: BenchResult[] = []
  for (const contender of ['majority', 'bully'] as const) {
    const mine = runs.filter((r) => r.contender === contender)
    if (mine.length === 0) continue
    const ours = partitionSide(mine)
    if (ours.median === null) continue
    const r = theirs.median === null ? undefined : ratio(ours.median, theirs.median)
    const ratios = perRepeat(mine, theirRuns, (x) => x.twoLeadersMs)
    results.push({
      name: `election.partition.${contender}`,
      unit: 'ms',
      value: ours.median,
      lowerIsBetter: true,
      ...(theirs.median === null
        ? {}
        : { baseline: { name: baselineName(setup.settings), value: theirs.median } }),
      ...(r === undefined ? {} : { ratio: r }),
      ...(ratios && { ratios }),
      params: {
        what:
          `time with two nodes each believing itself leader, from cutting the ${setup.cut} off ` +
          `(${setup.partitionMs} ms, both directions) to all three following one leader after the heal ` +
          '(3 hosts in network namespaces on a bridge)',
        algorithm: algorithmName[contender],
        nodes: 3,
        repeats: setup.repeats,
        partitionMs: setup.partitionMs,
        cut: setup.cut,
        settings: describeSettings(setup.settings),
        settleMs: setup.settleMs,
        timeoutMs: setup.agreeTimeoutMs,
        ratio: 'ours / node-discover (medians); 0 when ours is 0 and theirs is not',
        ours,
        baseline: theirs,
      },
      extra: {
        runs: mine.map(detailPartition),
        baselineRuns: runs.filter((x) => x.contender === 'node-discover').map(detailPartition),
      },
    })
  }
  return results
}
