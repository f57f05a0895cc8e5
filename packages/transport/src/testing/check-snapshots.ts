/**
 * `checkSnapshots`: tests a protocol's `snapshot()` against its contract, on random inputs.
 * Plain: it serializes with `canonicalKey`. Complete: two instances reached by different inputs
 * whose snapshots (and storage, and timers set) are equal give the same effects for the same
 * inputs from then on. Canonical: two snapshots that differ only in the order of some array,
 * where no continuation tells the instances apart, are one state written two ways. Restorable
 * (when the protocol has `restore()`): an instance restored from a snapshot behaves alike.
 */
import { canonicalKey } from '../canonical.js'
import type { NodeId } from '../ids.js'
import type { ProtocolFactory } from '../protocol.js'
import { createRandom, type Random } from '../random.js'
import { restoredSplit } from './check-restore.js'
import { firstChanged } from './snapshot-copies.js'
import {
  type SnapshotHarness as Harness,
  SnapshotHarness,
  type SnapshotInput,
} from './snapshot-harness.js'

export type { SnapshotInput }

export interface CheckSnapshotsOptions<Msg, Req> {
  /** How many seeds (1..n), or the seeds themselves. */
  seeds: number | readonly (number | string)[]
  /**
   * The next input for an instance: drawn with `random` from a small domain, so that different
   * sequences reach equal states. `timers` are the keys set now (a timer input for a key not set
   * is skipped).
   */
  inputs(
    random: Random,
    at: { self: NodeId; peers: readonly NodeId[]; timers: readonly string[] },
  ): SnapshotInput<Msg, Req>
  /** The node checked, and its peers. Default 1, and [2, 3]. */
  self?: NodeId
  peers?: readonly NodeId[]
  /** Input sequences per seed (default 16) and inputs per sequence (default 12). */
  walks?: number
  steps?: number
  /** Continuations tried on each pair of equal states (default 3). */
  continuations?: number
}

export interface SnapshotCheckReport {
  /** States snapshotted, and pairs of equal ones reached by different inputs and compared. */
  states: number
  comparedPairs: number
  /** States restored into a fresh instance and run on beside the original (0 without `restore`). */
  restored: number
}

type Walk<Msg, Req> = { seed: string; inputs: SnapshotInput<Msg, Req>[] }
type Reached<Msg, Req> = {
  walk: Walk<Msg, Req>
  length: number
  key: string
  loose: string
  /** The snapshot object itself, and its text when taken. */
  snapshot: unknown
  text: string
}

/** Throws, naming the seed and both input sequences, when the contract is broken. */
export function checkSnapshots<Msg, Req = never, Ev = never>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  options: CheckSnapshotsOptions<Msg, Req>,
): SnapshotCheckReport {
  const self = options.self ?? 1
  const peers = options.peers ?? [2, 3]
  const seeds =
    typeof options.seeds === 'number'
      ? Array.from({ length: options.seeds }, (_, i) => i + 1)
      : options.seeds
  const report: SnapshotCheckReport = { states: 0, comparedPairs: 0, restored: 0 }
  const restorable = factory(self).restore !== undefined
  const empty = () =>
    new SnapshotHarness(factory as ProtocolFactory<Msg, Req, unknown>, self, peers, 'restored')
  const fresh = (walk: Walk<Msg, Req>, length: number): Harness<Msg, Req, unknown> => {
    const h = new SnapshotHarness(
      factory as ProtocolFactory<Msg, Req, unknown>,
      self,
      peers,
      `prefix/${walk.seed}`,
    )
    h.start()
    for (const input of walk.inputs.slice(0, length)) h.feed(input)
    return h
  }
  for (const seed of seeds) {
    const where = `checkSnapshots, seed ${JSON.stringify(seed)}`
    const random = createRandom(`checkSnapshots/${seed}`)
    const reached: Reached<Msg, Req>[] = []
    for (let w = 0; w < (options.walks ?? 16); w++) {
      const walk: Walk<Msg, Req> = { seed: `${seed}/${w}`, inputs: [] }
      const h = fresh(walk, 0)
      const steps = random.int(0, options.steps ?? 12)
      const taken: Reached<Msg, Req>[] = []
      for (let i = 0; i <= steps; i++) {
        const r = record(h, walk, walk.inputs.length, where)
        reached.push(r)
        taken.push(r)
        report.states++
        if (i === steps) break
        const input = options.inputs(random, { self, peers, timers: [...h.timers].sort() })
        walk.inputs.push(input)
        if (h.feed(input) === undefined) walk.inputs.pop() // a timer not set: nothing happened
      }
      if (h.protocol.snapshotCopies === true) checkCopies(taken, walk, where)
    }
    if (restorable) checkRestore(reached, seed, options, fresh, empty, random, where, report)
    const byKey = new Map<string, Reached<Msg, Req>>()
    const byLoose = new Map<string, Reached<Msg, Req>>()
    for (const r of reached) {
      const first = byKey.get(r.key)
      if (first === undefined) byKey.set(r.key, r)
      else if (describe(first) !== describe(r)) {
        report.comparedPairs++
        const differs = compare(first, r, seed, options, fresh, random)
        if (differs !== undefined)
          throw new Error(
            `${where}: snapshot() is incomplete: two instances with equal snapshots (and storage and timers) behave differently.\n  after ${describe(first)}\n  and   ${describe(r)}\n  snapshot ${r.key}\n  ${differs}\n  Some state that changes what the node does is missing from snapshot().`,
          )
      }
      const loose = byLoose.get(r.loose)
      if (loose === undefined) byLoose.set(r.loose, r)
      else if (loose.key !== r.key && byKey.get(r.key) === r) {
        if (compare(loose, r, seed, options, fresh, random) === undefined)
          throw new Error(
            `${where}: snapshot() is not canonical: two snapshots differ only in the order of an array, and no continuation tells the instances apart.\n  after ${describe(loose)}: ${loose.key}\n  after ${describe(r)}: ${r.key}\n  Sort what comes from a Set or Map (insertion order is history, not state).`,
          )
      }
    }
  }
  return report
}

/** Each state reached, restored into a fresh instance: both must go on alike. */
function checkRestore<Msg, Req>(
  reached: readonly Reached<Msg, Req>[],
  seed: number | string,
  options: CheckSnapshotsOptions<Msg, Req>,
  fresh: (walk: Walk<Msg, Req>, length: number) => Harness<Msg, Req, unknown>,
  empty: () => Harness<Msg, Req, unknown>,
  random: Random,
  where: string,
  report: SnapshotCheckReport,
): void {
  // One continuation per state: every state reached is tried, which is many already.
  const runs = { continuations: 1, steps: options.steps ?? 12 }
  const next = (r: Random, h: Harness<Msg, Req, unknown>) =>
    options.inputs(r, { self: h.self, peers: h.peers, timers: [...h.timers].sort() })
  for (const r of reached) {
    report.restored++
    const split = restoredSplit(
      () => fresh(r.walk, r.length),
      empty,
      next,
      random,
      {
        ...runs,
        seed: String(seed),
      },
      show,
    )
    if (split !== undefined)
      throw new Error(
        `${where}: restore() does not give an instance that behaves alike the one snapshotted.\n  after ${describe(r)}\n  snapshot ${r.key}\n  ${split}\n  Some state restore() does not set, or sets from a live reference.`,
      )
  }
}

/** `snapshotCopies`: each snapshot taken along the walk reads as it did, the walk run to its end. */
function checkCopies<Msg, Req>(
  taken: readonly Reached<Msg, Req>[],
  walk: Walk<Msg, Req>,
  where: string,
): void {
  const changed = firstChanged(taken)
  if (changed !== undefined)
    throw new Error(
      `${where}: snapshotCopies, yet a snapshot changed as its instance ran on (the instance holds part of it).\n  taken after ${describe(changed.taken)}: ${changed.taken.text}\n  after ${describe({ walk, length: walk.inputs.length })}: ${changed.now}\n  Copy what snapshot() returns of the instance's own arrays and objects.`,
    )
}

/** Snapshots `h` (after `length` inputs of `walk`) and checks it is plain and not live. */
function record<Msg, Req>(
  h: Harness<Msg, Req, unknown>,
  walk: Walk<Msg, Req>,
  length: number,
  where: string,
): Reached<Msg, Req> {
  const snapshot = h.protocol.snapshot?.()
  if (h.protocol.snapshot === undefined) throw new Error(`${where}: the protocol has no snapshot()`)
  let text: string
  try {
    text = canonicalKey(snapshot, 'snapshot')
  } catch (error) {
    throw new Error(`${where}, after ${describe({ walk, length })}: ${(error as Error).message}`)
  }
  const key = `${text} ${h.storageText()} ${[...h.timers].sort().join(',')}`
  const loose = `${canonicalKey(sortArrays(snapshot))} ${h.storageText()} ${[...h.timers].sort()}`
  return { walk, length, key, loose, snapshot, text }
}

/** Same inputs from the two states: undefined when their effects agree, else where they split. */
function compare<Msg, Req>(
  a: Reached<Msg, Req>,
  b: Reached<Msg, Req>,
  seed: number | string,
  options: CheckSnapshotsOptions<Msg, Req>,
  fresh: (walk: Walk<Msg, Req>, length: number) => Harness<Msg, Req, unknown>,
  random: Random,
): string | undefined {
  for (let c = 0; c < (options.continuations ?? 3); c++) {
    const ha = fresh(a.walk, a.length)
    const hb = fresh(b.walk, b.length)
    ha.reseed(`continue/${seed}/${c}`)
    hb.reseed(`continue/${seed}/${c}`)
    const done: string[] = []
    for (let i = 0; i < (options.steps ?? 12); i++) {
      const timers = [...ha.timers].sort()
      const input = options.inputs(random, { self: ha.self, peers: ha.peers, timers })
      const ea = ha.feed(input)
      const eb = hb.feed(input)
      done.push(show(input))
      const ta = JSON.stringify(ea ?? 'no such timer')
      const tb = JSON.stringify(eb ?? 'no such timer')
      if (ta !== tb) return `then ${done.join(', ')}: ${ta}\n  vs ${tb}`
    }
  }
  return undefined
}

function describe<Msg, Req>(r: { walk: Walk<Msg, Req>; length: number }): string {
  const inputs = r.walk.inputs.slice(0, r.length)
  return inputs.length === 0 ? 'start' : `start, ${inputs.map(show).join(', ')}`
}

function show<Msg, Req>(input: SnapshotInput<Msg, Req>): string {
  if (input.kind === 'message')
    return `message from ${String(input.from)} ${JSON.stringify(input.msg)}`
  if (input.kind === 'timer') return `timer ${input.key}`
  return `request ${JSON.stringify(input.req)}`
}

/** The value with every array sorted (by canonical text): what order-blind equality compares. */
function sortArrays(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(sortArrays)
    const keyed = items.map((v) => ({ v, k: canonicalKey(v) }))
    keyed.sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    return keyed.map(({ v }) => v)
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortArrays(v)]))
  return value
}
