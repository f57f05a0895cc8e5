/**
 * The three measures the course texts give for a mutual exclusion algorithm, taken in the
 * simulator: fault-free, every message takes exactly 1 ms of virtual time, so every time below
 * reads directly in message delays.
 *
 * Workloads (each seed draws its own order of nodes and holds of 1 to 3 ms):
 * - light: every process asks `LIGHT_ROUNDS` times, one request at a time, `LIGHT_GAP_MS` apart
 *   (far longer than any entry takes), in a shuffled order;
 * - heavy: every process asks at time 0 and asks again at the very moment it leaves, until it
 *   has entered `HEAVY_ROUNDS` times.
 *
 * Measures, over all runs of the seeds:
 * - messages per entry: messages sent in the run divided by the entries. The token ring never
 *   goes quiet, so its light-load runs stop at a fixed time (`LIGHT_GAP_MS` after the last
 *   request) and count everything sent until then, idle circulation included; under heavy load
 *   it counts the messages sent from the first entry to the last, per hand-over (entries - 1).
 * - client delay: request to entry, for entries that found the resource free: no other process
 *   was inside when the request was made, and none entered between the request and the entry.
 * - synchronization delay: one process's exit to the next entry, when the process entering next
 *   was already waiting at that exit (asked strictly before it). A process that leaves and asks
 *   again at once is not waiting at its own exit, so its re-entry is no hand-over.
 *
 * Who asks: n processes. The centralized coordinator is one more node that never asks itself (so
 * each entry costs the texts' 3 messages; a coordinator's own entries cost none). The quorum
 * algorithm runs n coordinators beside the n processes, none of them asking, as in the texts.
 */
import {
  createRandom,
  type NodeId,
  type ProtocolFactory,
  type Random,
  SimNetwork,
} from '@sd/transport'
import { centralized } from '../../src/centralized/index.js'
import { checkMutualExclusion, type TimedEvent } from '../../src/check.js'
import type { MutexRequest } from '../../src/contract.js'
import { lamportMutex } from '../../src/lamport/index.js'
import { gridQuorumRanks, maekawa } from '../../src/maekawa/index.js'
import { quorumMutex } from '../../src/quorum/index.js'
import { ricartAgrawala } from '../../src/ricart-agrawala/index.js'
import { tokenRing } from '../../src/token-ring/index.js'

export type Load = 'light' | 'heavy'

export const LIGHT_ROUNDS = 2
export const LIGHT_GAP_MS = 100
export const HEAVY_ROUNDS = 3
/** Longest a heavy-load token ring run goes on (every entry is over long before). */
const HEAVY_RING_UNTIL_MS = 2000
export const SEEDS = [1, 2, 3] as const
/** The sizes the README table shows: Maekawa's grid is square for both (2 x 2, 3 x 3). */
export const TABLE_SIZES = [4, 9] as const

/** Any protocol of this package: the run reads only the `type` of what it emits. */
type AnyMutex = ProtocolFactory<never, MutexRequest, { type: string }>

export interface Algorithm {
  key:
    | 'centralized'
    | 'ricart-agrawala'
    | 'ricart-agrawala-always'
    | 'lamport'
    | 'maekawa'
    | 'token-ring'
    | 'quorum'
  name: string
  /** The nodes to launch for n processes that ask (askers are 1..n), and the protocol. */
  setup(askers: NodeId[]): { members: NodeId[]; factory: AnyMutex }
  /** Protocols that keep sending when idle (the token ring) run to a fixed time. */
  neverQuiet?: boolean
}

/** Ids of the nodes that are not processes asking start here. */
const HELPERS = 100

export const ALGORITHMS: readonly Algorithm[] = [
  {
    key: 'centralized',
    name: 'centralized coordinator',
    setup: (askers) => ({
      members: [...askers, HELPERS],
      factory: centralized({ coordinator: HELPERS }),
    }),
  },
  {
    key: 'ricart-agrawala',
    name: 'Ricart-Agrawala',
    setup: (askers) => ({ members: askers, factory: ricartAgrawala() }),
  },
  {
    key: 'ricart-agrawala-always',
    name: 'Ricart-Agrawala, `alwaysAnswer`',
    setup: (askers) => ({ members: askers, factory: ricartAgrawala({ alwaysAnswer: true }) }),
  },
  {
    key: 'lamport',
    name: 'Lamport',
    setup: (askers) => ({ members: askers, factory: lamportMutex() }),
  },
  {
    key: 'maekawa',
    name: 'Maekawa',
    setup: (askers) => ({ members: askers, factory: maekawa() }),
  },
  {
    key: 'token-ring',
    name: 'token ring',
    // No hold of an unwanted token: a pass costs its 3 message delays and nothing else.
    setup: (askers) => ({ members: askers, factory: tokenRing({ holdMs: 0, ackTimeoutMs: 20 }) }),
    neverQuiet: true,
  },
  {
    key: 'quorum',
    name: 'quorum of n coordinators',
    setup: (askers) => {
      const coordinators = askers.map((_, i) => HELPERS + i)
      return { members: [...askers, ...coordinators], factory: quorumMutex({ coordinators }) }
    },
  },
]

export function algorithm(key: Algorithm['key']): Algorithm {
  const found = ALGORITHMS.find((a) => a.key === key)
  if (found === undefined) throw new Error(`no algorithm ${key}`)
  return found
}

export interface Entry {
  node: NodeId
  askedAt: number
  enteredAt: number
  releasedAt: number
}

export interface HandOver {
  from: NodeId
  to: NodeId
  delay: number
}

export interface Run {
  seed: number
  entries: Entry[]
  /** Messages counted for this run, and the entries (or hand-overs) they are divided by. */
  messages: number
  per: number
  clientDelays: number[]
  handOvers: HandOver[]
}

export interface Summary {
  mean: number
  min: number
  max: number
  count: number
}

export interface Measured {
  algorithm: Algorithm
  n: number
  load: Load
  messagesPerEntry: number
  /** Undefined when no entry qualified (see the definitions above). */
  clientDelay: Summary | undefined
  syncDelay: Summary | undefined
  runs: Run[]
}

/** The n processes that ask: ids 1..n. */
export const askersOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** One run of `algo` with n processes under `load`; throws if the run is not a clean one. */
export function runOnce(algo: Algorithm, n: number, load: Load, seed: number): Run {
  const askers = askersOf(n)
  const { members, factory } = algo.setup(askers)
  const random = createRandom(`measures/${algo.key}/${n}/${load}/${seed}`)
  const hold = () => random.int(1, 3)
  const net = new SimNetwork({ seed, latency: 1 })
  const events: TimedEvent[] = []
  const entries: Entry[] = []
  const askedAt = new Map<NodeId, number>()
  const open = new Map<NodeId, Entry>()
  const entered = new Map<NodeId, number>()
  const ask = (node: NodeId, t: number) =>
    net.at(t, () => {
      askedAt.set(node, net.now)
      net.request<MutexRequest>(node, { type: 'acquire' })
    })

  const onEmit = (node: NodeId, event: { type: string }, t: number) => {
    events.push({ node, t, event })
    const { type } = event
    if (type === 'acquired') {
      const asked = askedAt.get(node)
      if (asked === undefined) throw new Error(`${algo.name}: ${String(node)} entered unasked`)
      askedAt.delete(node)
      const entry: Entry = { node, askedAt: asked, enteredAt: t, releasedAt: Number.NaN }
      entries.push(entry)
      open.set(node, entry)
      entered.set(node, (entered.get(node) ?? 0) + 1)
      net.request<MutexRequest>(node, { type: 'release' }, t + hold())
    } else if (type === 'released') {
      const entry = open.get(node)
      if (entry !== undefined) entry.releasedAt = t
      open.delete(node)
      // Heavy load: it wants the resource again as soon as it leaves.
      if (load === 'heavy' && (entered.get(node) ?? 0) < HEAVY_ROUNDS) ask(node, t)
    }
  }
  net.launch(members, factory, { onEmit })

  let lastAsk = 0
  if (load === 'light') {
    const order = Array.from({ length: LIGHT_ROUNDS }, () => shuffled(askers, random)).flat()
    order.forEach((node, k) => {
      // Far apart, with a jitter so the ring's token is anywhere when the request comes.
      lastAsk = (k + 1) * LIGHT_GAP_MS + random.int(0, LIGHT_GAP_MS / 4)
      ask(node, lastAsk)
    })
  } else {
    for (const node of shuffled(askers, random)) ask(node, 0)
  }
  if (!algo.neverQuiet) net.run()
  else net.run({ until: load === 'light' ? lastAsk + LIGHT_GAP_MS : HEAVY_RING_UNTIL_MS })

  const expected = n * (load === 'light' ? LIGHT_ROUNDS : HEAVY_ROUNDS)
  const verdict = checkMutualExclusion(events)
  const where = `${algo.name}, n = ${n}, ${load} load, seed ${seed}`
  if (verdict.violations.length > 0) {
    throw new Error(`${where}: ${JSON.stringify(verdict.violations[0])}`)
  }
  if (entries.length !== expected || entries.some((e) => Number.isNaN(e.releasedAt))) {
    throw new Error(`${where}: ${entries.length} complete entries, expected ${expected}`)
  }
  entries.sort((a, b) => a.enteredAt - b.enteredAt)

  let messages = net.stats.sent
  let per = entries.length
  if (algo.neverQuiet && load === 'heavy') {
    const first = entries[0]!.enteredAt
    const last = entries.at(-1)!.enteredAt
    messages = net.trace.filter((e) => e.type === 'send' && e.t >= first && e.t < last).length
    per = entries.length - 1
  }
  return {
    seed,
    entries,
    messages,
    per,
    clientDelays: clientDelays(entries),
    handOvers: handOvers(entries),
  }
}

/** Request to entry, for entries that found the resource free (see the definitions above). */
function clientDelays(entries: readonly Entry[]): number[] {
  return entries
    .filter((e) =>
      entries.every((o) => o === e || o.enteredAt >= e.enteredAt || o.releasedAt <= e.askedAt),
    )
    .map((e) => e.enteredAt - e.askedAt)
}

/** Exit to the next entry, when the next process was already waiting at that exit. */
function handOvers(sorted: readonly Entry[]): HandOver[] {
  const out: HandOver[] = []
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!
    const next = sorted[i]!
    if (next.askedAt < previous.releasedAt) {
      out.push({
        from: previous.node,
        to: next.node,
        delay: next.enteredAt - previous.releasedAt,
      })
    }
  }
  return out
}

function summary(values: readonly number[]): Summary | undefined {
  if (values.length === 0) return undefined
  return {
    mean: values.reduce((s, v) => s + v, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
    count: values.length,
  }
}

const measured = new Map<string, Measured>()

/** `algo` with n processes under `load`, over `seeds` (runs are deterministic: kept once made). */
export function measure(
  algo: Algorithm,
  n: number,
  load: Load,
  seeds: readonly number[] = SEEDS,
): Measured {
  const key = `${algo.key}/${n}/${load}/${seeds.join(',')}`
  const known = measured.get(key)
  if (known !== undefined) return known
  const runs = seeds.map((seed) => runOnce(algo, n, load, seed))
  const messages = runs.reduce((s, r) => s + r.messages, 0)
  const per = runs.reduce((s, r) => s + r.per, 0)
  const result: Measured = {
    algorithm: algo,
    n,
    load,
    messagesPerEntry: messages / per,
    clientDelay: summary(runs.flatMap((r) => r.clientDelays)),
    syncDelay: summary(runs.flatMap((r) => r.handOvers.map((h) => h.delay))),
    runs,
  }
  measured.set(key, result)
  return result
}

/** Maekawa: the quorum peers (members other than itself) of each of the n processes, K - 1. */
export const maekawaPeers = (n: number): number[] => gridQuorumRanks(n).map((q) => q.length - 1)
