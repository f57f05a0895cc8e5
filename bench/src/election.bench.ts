/**
 * Leader election against node-discover 1.2.1, three OS processes, side by side in one run:
 * - failover: SIGKILL the leader's process (loopback), time until both survivors follow one new
 *   leader;
 * - partition: three hosts in network namespaces on a bridge; cut the leader off for a while (both
 *   directions), heal, and measure how long two nodes each believed themselves leader;
 * - rejoin: the same hosts, the majority mode; cut a follower off for longer than the election
 *   timeout, heal, and count the trials in which its return caused an election (PreVote on, and
 *   off as the contrast).
 * Ours: bully() and majorityElection() through createElection over the UDP transport, heartbeat at
 * node-discover's hello interval and node timeout; bully-phi is the bully with the phi accrual
 * detector. The partition and the rejoin need root, iproute2 and nftables; without them they print
 * why and report nothing.
 *
 * Environment: SD_ELECTION_REPEATS (10 per contender and part), SD_ELECTION_PARTS
 * ("failover,partition,rejoin"), SD_ELECTION_CONTENDERS ("bully,bully-phi,majority,node-discover"),
 * SD_ELECTION_PARTITION_MS (3000), SD_ELECTION_CUT ("leader" or "follower"),
 * SD_ELECTION_SETTLE_MS (500), SD_ELECTION_TIMEOUT_MS (10000), SD_ELECTION_PHI_THRESHOLD (8),
 * SD_ELECTION_PHI_PAUSE_MS (100), SD_ELECTION_PHI_INTERVAL_MS (25),
 * SD_ELECTION_PHI_LOCAL_PAUSE_MS (0; 'off'), SD_ELECTION_TRUST_DETECTOR (1; 0: the textbook bully),
 * SD_ELECTION_REJOIN_REPEATS (20), SD_ELECTION_REJOIN_CONTRAST (5),
 * SD_ELECTION_REJOIN_CUT_MS (2000), SD_ELECTION_REJOIN_WATCH_MS (2000).
 */

import {
  createNetnsHosts,
  type NetnsHosts,
  netnsUnavailable,
} from '../../test-support/netns-hosts.js'
import { Group } from './lib/election-group.js'
import type { Contender, ElectionSettings } from './lib/election-protocol.js'
import {
  type RejoinRun,
  type RejoinTiming,
  rejoinResults,
  rejoinTrial,
} from './lib/election-rejoin.js'
import { type ElectionSetup, failoverResults, partitionResults } from './lib/election-results.js'
import {
  type FailoverRun,
  failoverTrial,
  type PartitionRun,
  partitionTrial,
} from './lib/election-trials.js'
import { killAllWorkersSync } from './lib/election-workers.js'
import { cleanupOnExit } from './lib/exit-cleanup.js'
import type { BenchResult } from './lib/result.js'

function envNumber(name: string, fallback: number, zeroOk = false): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroOk))
    throw new RangeError(`${name} must be a positive number`)
  return value
}

function envList<T extends string>(name: string, fallback: string, allowed: readonly T[]): T[] {
  const list = (process.env[name] ?? fallback).split(',').map((s) => s.trim())
  for (const item of list) {
    if (!allowed.includes(item as T)) {
      throw new RangeError(`${name}: ${item} is none of ${allowed.join(', ')}`)
    }
  }
  return list as T[]
}

/** `localPauseMs` from the environment: a number (0 by default), or 'off' for the package's default. */
function localPause(): number | undefined {
  const value = process.env.SD_ELECTION_PHI_LOCAL_PAUSE_MS ?? '0'
  return value === 'off' ? undefined : envNumber('SD_ELECTION_PHI_LOCAL_PAUSE_MS', 0, true)
}

// node-discover's timing as measured on these machines (bench/README.md); ours: 100 / 500 ms.
// bully-phi: the fastest phi setting of the simulator's sweep whose false positives per node-hour
// are no more than the node-discover model's (none) under every condition it ran: heartbeats every
// 25 ms, threshold 8, a 100 ms acceptable pause, localPauseMs 0 (without it, 250 ms: a watcher's
// own pauses were its false positives); and the bully's trustDetector (no OK awaited from the
// leader its own detector declared silent).
const settings: ElectionSettings = {
  helloIntervalMs: 100,
  checkIntervalMs: 200,
  nodeTimeoutMs: 500,
  masterTimeoutMs: 600,
  phi: {
    threshold: envNumber('SD_ELECTION_PHI_THRESHOLD', 8),
    acceptablePauseMs: envNumber('SD_ELECTION_PHI_PAUSE_MS', 100, true),
    heartbeatIntervalMs: envNumber('SD_ELECTION_PHI_INTERVAL_MS', 25),
    ...(localPause() !== undefined && { localPauseMs: localPause() }),
    trustDetector: (process.env.SD_ELECTION_TRUST_DETECTOR ?? '1') !== '0',
  },
}
const cut = envList('SD_ELECTION_CUT', 'leader', ['leader', 'follower'] as const)[0]!
const setup: ElectionSetup = {
  repeats: Math.round(envNumber('SD_ELECTION_REPEATS', 10)),
  settings,
  settleMs: envNumber('SD_ELECTION_SETTLE_MS', 500),
  agreeTimeoutMs: envNumber('SD_ELECTION_TIMEOUT_MS', 10_000),
  partitionMs: envNumber('SD_ELECTION_PARTITION_MS', 3000),
  cut,
}
const rejoinTiming: RejoinTiming = {
  settings,
  settleMs: setup.settleMs,
  agreeTimeoutMs: setup.agreeTimeoutMs,
  cutMs: envNumber('SD_ELECTION_REJOIN_CUT_MS', 2000),
  watchMs: envNumber('SD_ELECTION_REJOIN_WATCH_MS', 2000),
}
const rejoinRepeats = Math.round(envNumber('SD_ELECTION_REJOIN_REPEATS', 20))
const rejoinContrast = Math.round(envNumber('SD_ELECTION_REJOIN_CONTRAST', 5, true))
const parts = envList('SD_ELECTION_PARTS', 'failover,partition,rejoin', [
  'failover',
  'partition',
  'rejoin',
] as const)
const contenders = envList('SD_ELECTION_CONTENDERS', 'bully,bully-phi,majority,node-discover', [
  'bully',
  'bully-phi',
  'majority',
  'node-discover',
] as const satisfies readonly Contender[])
// The partition figures are the bully's, the majority mode's and node-discover's.
const partitionContenders = contenders.filter((c) => c !== 'bully-phi')

const log = (line: string) => console.error(`  election: ${line}`)
const ms = (x: number | undefined) => (x === undefined ? '-' : `${Math.round(x)} ms`)

/** Every repeat runs each contender once, in an order rotated from repeat to repeat. */
function* schedule(among: readonly Contender[]): Generator<[number, Contender]> {
  for (let r = 0; r < setup.repeats; r++) {
    for (let c = 0; c < among.length; c++) {
      yield [r, among[(r + c) % among.length]!]
    }
  }
}

/** PreVote on in every repeat; off (the contrast) in the first few, interleaved. */
function* rejoinSchedule(): Generator<[number, Contender]> {
  for (let r = 0; r < rejoinRepeats; r++) {
    yield [r, 'majority']
    if (r < rejoinContrast) yield [r, 'majority-no-prevote']
  }
}

let nextTrial = 0

async function failover(): Promise<FailoverRun[]> {
  const group = new Group(['127.0.0.1', '127.0.0.1', '127.0.0.1'])
  const runs: FailoverRun[] = []
  try {
    for (const [r, contender] of schedule(contenders)) {
      const run = (await group.ready())
        ? await failoverTrial(group, contender, nextTrial++, setup)
        : { contender, ok: false, error: 'a worker did not start' }
      runs.push(run)
      const what = run.ok
        ? `${run.oldLeader} killed, ${run.newLeader} after ${ms(run.failoverMs)} (first claim ${ms(run.firstClaimMs)})` +
          (run.phases
            ? `: suspected ${ms(run.phases.firstSuspectMs)} to ${ms(run.phases.lastSuspectMs)}, ` +
              `election ${ms(run.phases.electionMs)}, accepted ${ms(run.phases.acceptMs)}`
            : '')
        : `FAILED: ${run.error}`
      log(`failover ${r + 1}/${setup.repeats} ${contender}: ${what}`)
    }
  } finally {
    await group.close()
  }
  return runs
}

async function partition(net: NetnsHosts): Promise<PartitionRun[]> {
  const group = new Group(net.addresses, net.hosts)
  const runs: PartitionRun[] = []
  try {
    for (const [r, contender] of schedule(partitionContenders)) {
      const run = (await group.ready())
        ? await partitionTrial(group, net, contender, nextTrial++, setup)
        : { contender, ok: false, error: 'a worker did not start' }
      runs.push(run)
      const what =
        run.twoLeadersMs === undefined
          ? `FAILED: ${run.error}`
          : `cut ${run.cut}: two leaders ${ms(run.twoLeadersMs)}, majority side ` +
            `${run.majorityLeaderAtHeal ? 'had a leader' : 'had NO leader'} at the heal ` +
            `(leaderless ${ms(run.majorityLeaderlessMs)}), ` +
            (run.cutWasLeader ? `cut leader stepped down after ${ms(run.stepDownMs)}, ` : '') +
            `agreed ${ms(run.healMs)} after the heal` +
            (run.ok ? '' : ` (${run.error})`)
      log(`partition ${r + 1}/${setup.repeats} ${contender}: ${what}`)
    }
  } finally {
    await group.close()
  }
  return runs
}

async function rejoin(net: NetnsHosts): Promise<RejoinRun[]> {
  const group = new Group(net.addresses, net.hosts)
  const runs: RejoinRun[] = []
  try {
    for (const [r, contender] of rejoinSchedule()) {
      const run = (await group.ready())
        ? await rejoinTrial(group, net, contender, nextTrial++, rejoinTiming, r)
        : { contender, ok: false, error: 'a worker did not start' }
      runs.push(run)
      const what =
        run.electionCaused === undefined
          ? `FAILED: ${run.error}`
          : `cut ${run.cut} (term ${run.term}; it stood for ${run.cutStoodAtHeal ?? 'none'} by the heal): ` +
            (run.electionCaused
              ? `ELECTION (term ${run.termAfter}, leader ${run.leader} -> ${run.leaderAfter})`
              : 'no election') +
            (run.disturbedDuringCut ? ', disturbed during the cut' : '') +
            (run.ok ? '' : ` (${run.error})`)
      log(`rejoin ${r + 1}/${rejoinRepeats} ${contender}: ${what}`)
    }
  } finally {
    await group.close()
  }
  return runs
}

/** The namespaces, created once for the partition and the rejoin; undefined (and why) without. */
function namespaces(): NetnsHosts | undefined {
  const unavailable = netnsUnavailable()
  if (unavailable) {
    log(`partition and rejoin skipped: ${unavailable}`)
    return undefined
  }
  try {
    return createNetnsHosts('sd-el', 3, 211)
  } catch (e) {
    log(`partition and rejoin skipped: cannot create network namespaces (${String(e)})`)
    return undefined
  }
}

export default async function electionBench(): Promise<BenchResult[]> {
  let net: NetnsHosts | undefined
  const removeHandlers = cleanupOnExit(() => {
    killAllWorkersSync()
    net?.destroy()
  })
  const results: BenchResult[] = []
  try {
    if (parts.includes('failover')) results.push(...failoverResults(await failover(), setup))
    if (parts.includes('partition') || parts.includes('rejoin')) {
      net = namespaces()
      if (net && parts.includes('partition')) {
        results.push(...partitionResults(await partition(net), setup))
      }
      if (net && parts.includes('rejoin')) {
        results.push(...rejoinResults(await rejoin(net), setup, rejoinTiming))
      }
    }
    return results
  } finally {
    killAllWorkersSync()
    net?.destroy()
    removeHandlers()
  }
}
