/**
 * Leader election against node-discover 1.2.1, three OS processes, side by side in one run:
 * - failover: SIGKILL the leader's process (loopback), time until both survivors follow one new
 *   leader;
 * - partition: three hosts in network namespaces on a bridge; cut the leader off for a while (both
 *   directions), heal, and measure how long two nodes each believed themselves leader.
 * Ours: bully() and majorityElection() through createElection over the UDP transport, heartbeat at
 * node-discover's hello interval and node timeout. The partition needs root, iproute2 and nftables;
 * without them it prints why and reports nothing.
 *
 * Environment: SD_ELECTION_REPEATS (10 per contender and part), SD_ELECTION_PARTS
 * ("failover,partition"), SD_ELECTION_CONTENDERS ("bully,majority,node-discover"),
 * SD_ELECTION_PARTITION_MS (3000), SD_ELECTION_CUT ("leader" or "follower"),
 * SD_ELECTION_SETTLE_MS (500), SD_ELECTION_TIMEOUT_MS (10000).
 */

import {
  createNetnsHosts,
  type NetnsHosts,
  netnsUnavailable,
} from '../../test-support/netns-hosts.js'
import { Group } from './lib/election-group.js'
import type { Contender, ElectionSettings } from './lib/election-protocol.js'
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

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0)
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

// node-discover's timing as measured on these machines (bench/README.md); ours: 100 / 500 ms.
const settings: ElectionSettings = {
  helloIntervalMs: 100,
  checkIntervalMs: 200,
  nodeTimeoutMs: 500,
  masterTimeoutMs: 600,
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
const parts = envList('SD_ELECTION_PARTS', 'failover,partition', ['failover', 'partition'] as const)
const contenders = envList('SD_ELECTION_CONTENDERS', 'bully,majority,node-discover', [
  'bully',
  'majority',
  'node-discover',
] as const satisfies readonly Contender[])

const log = (line: string) => console.error(`  election: ${line}`)
const ms = (x: number | undefined) => (x === undefined ? '-' : `${Math.round(x)} ms`)

/** Every repeat runs each contender once, in an order rotated from repeat to repeat. */
function* schedule(): Generator<[number, Contender]> {
  for (let r = 0; r < setup.repeats; r++) {
    for (let c = 0; c < contenders.length; c++) {
      yield [r, contenders[(r + c) % contenders.length]!]
    }
  }
}

let nextTrial = 0

async function failover(): Promise<FailoverRun[]> {
  const group = new Group(['127.0.0.1', '127.0.0.1', '127.0.0.1'])
  const runs: FailoverRun[] = []
  try {
    for (const [r, contender] of schedule()) {
      const run = (await group.ready())
        ? await failoverTrial(group, contender, nextTrial++, setup)
        : { contender, ok: false, error: 'a worker did not start' }
      runs.push(run)
      const what = run.ok
        ? `${run.oldLeader} killed, ${run.newLeader} after ${ms(run.failoverMs)} (first claim ${ms(run.firstClaimMs)})`
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
    for (const [r, contender] of schedule()) {
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

export default async function electionBench(): Promise<BenchResult[]> {
  let net: NetnsHosts | undefined
  const removeHandlers = cleanupOnExit(() => {
    killAllWorkersSync()
    net?.destroy()
  })
  const results: BenchResult[] = []
  try {
    if (parts.includes('failover')) results.push(...failoverResults(await failover(), setup))
    if (parts.includes('partition')) {
      const unavailable = netnsUnavailable()
      if (unavailable) {
        log(`partition skipped: ${unavailable}`)
      } else {
        try {
          net = createNetnsHosts('sd-el', 3, 211)
        } catch (e) {
          log(`partition skipped: cannot create network namespaces (${String(e)})`)
        }
        if (net) results.push(...partitionResults(await partition(net), setup))
      }
    }
    return results
  } finally {
    killAllWorkersSync()
    net?.destroy()
    removeHandlers()
  }
}
