import { describe, expect, it } from 'vitest'
import {
  flood,
  ricartAgrawala,
  vectorBroadcast,
} from '../../../../test-support/explore-protocols.js'
import { hashKey } from '../../src/canonical.js'
import {
  type ExploreOptions,
  type ExploreScenario,
  explore,
  replay,
} from '../../src/explore/index.js'
import { renameStrings } from '../../src/explore/symmetry.js'
import type { NodeId } from '../../src/index.js'
import { type AnyFactory, emitted, ids, launch } from './support/scenarios.js'

/**
 * A symmetric family: a scenario whose nodes in `group` are interchangeable, and each node's
 * events seen without ids (`view`), so that invariants built on views are symmetric too.
 */
interface Family {
  name: string
  nodes: NodeId[]
  /** What the scenario declares: `true` (all) or one group. */
  symmetric: true | NodeId[]
  make: (invariant: ExploreScenario['invariant']) => ExploreScenario
  /** The protocol's own spec (a bug some variants have). */
  spec: ExploreScenario['invariant']
  view: (events: ReadonlyArray<{ node: NodeId; event: unknown }>, node: NodeId) => string[]
  options?: ExploreOptions
}

/** The racy mutex's snapshot holds ids in `deferred`; messages and events hold none. */
const relabelMutex = (data: unknown, rename: (id: NodeId) => NodeId): unknown => {
  if (data === null || typeof data !== 'object' || !('deferred' in data)) return data
  const state = data as { deferred: NodeId[] }
  return { ...state, deferred: state.deferred.map(rename).sort() }
}

/** The vector broadcast's ids are strings: `'2'`, `'m2'` (payload), `'deliver m2'`, vc keys. */
const relabelBroadcast = (data: unknown, rename: (id: NodeId) => NodeId): unknown => {
  const text = (s: string) =>
    s.replace(
      /^(deliver m|m|)(\d+)$/,
      (_, pre: string, id: string) => `${pre}${String(rename(Number(id)))}`,
    )
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v)
    if (v === null || typeof v !== 'object') return v
    if (Array.isArray(v)) return v.map(walk)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x)]))
  }
  return walk(data)
}

const floodView = (events: ReadonlyArray<{ node: NodeId; event: unknown }>, node: NodeId) =>
  emitted(events, node)

const FLOOD: NodeId[] = [1, 'b', 'c', 'd']

/** Nobody hears the rumour twice. */
const heardOnce: ExploreScenario['invariant'] = ({ events }) =>
  FLOOD.find((n) => emitted(events, n).length > 1) === undefined ? undefined : 'heard twice'

const families = (): Family[] => [
  {
    name: 'flood, 4 nodes, string ids (default relabelling)',
    nodes: FLOOD,
    symmetric: ['b', 'c', 'd'],
    make: (invariant) => ({ setup: launch(FLOOD, flood(true)), invariant }),
    spec: heardOnce,
    view: floodView,
  },
  {
    name: 'flood without dedupe, 4 nodes',
    nodes: FLOOD,
    symmetric: ['b', 'c', 'd'],
    make: (invariant) => ({ setup: launch(FLOOD, flood(false)), invariant }),
    spec: heardOnce,
    view: floodView,
    options: { depth: 8 },
  },
  {
    name: 'flood, 4 nodes, a loss',
    nodes: FLOOD,
    symmetric: ['b', 'c', 'd'],
    make: (invariant) => ({ setup: launch(FLOOD, flood(true)), invariant }),
    spec: heardOnce,
    view: floodView,
    options: { faults: { loss: 1 } },
  },
  {
    name: 'racy mutex, 3 nodes (relabel hook)',
    nodes: ids(3),
    symmetric: true,
    make: (invariant) => ({
      setup: launch(ids(3), ricartAgrawala(false) as AnyFactory),
      invariant,
      relabel: relabelMutex,
    }),
    spec: ({ events }) =>
      events.filter((e) => e.event === 'enter').length > 1 ? 'two in the section' : undefined,
    view: (events, node) => emitted(events, node),
  },
  {
    name: 'vector broadcast, 3 nodes, reordering (relabel hook)',
    nodes: ids(3),
    symmetric: [1, 2, 3],
    make: (invariant) => ({
      fifo: false,
      setup(net) {
        net.launch(ids(3), vectorBroadcast(false))
        for (const id of ids(3)) net.request(id, { payload: `m${id}` })
      },
      invariant,
      relabel: relabelBroadcast,
    }),
    // Each node delivers its own message first (it does, at once).
    spec: ({ events }) =>
      ids(3).some((n) => {
        const seen = emitted(events, n)
        return seen.length > 0 && seen[0] !== `deliver m${n}`
      })
        ? 'a node delivered another message before its own'
        : undefined,
    // Its own message or another's: the sender's id left out.
    view: (events, node) =>
      emitted(events, node).map((e) => (e === `deliver m${String(node)}` ? 'own' : 'other')),
  },
]

/**
 * A seeded spec that some runs break: a node whose view (so far) hashes to 0 mod `m`, or a
 * multiset of views (the same for every relabelling) that does. Symmetric by construction.
 */
const seededInvariant =
  (family: Family, seed: number, m: number): ExploreScenario['invariant'] =>
  ({ events }) => {
    const views = family.nodes.map((n) => family.view(events, n).join(','))
    for (const v of views)
      if (v !== '' && Number.parseInt(hashKey(`${seed}|${v}`).slice(0, 6), 16) % m === 0)
        return `a node saw ${v}`
    const all = [...views].sort().join(';')
    if (Number.parseInt(hashKey(`${seed}#${all}`).slice(0, 6), 16) % (m * 3) === 0)
      return `the nodes saw ${all}`
    return undefined
  }

const declared = (family: Family) =>
  family.symmetric === true ? true : ([family.symmetric] as NodeId[][])

describe('explore: symmetry reduction', () => {
  // Verdicts over every family's variants, checked by the test after them (tests run in order).
  let found = 0
  let clean = 0
  for (const family of families()) {
    it(`${family.name}: finds a violation exactly when the full search does`, () => {
      // Variant 0 is the protocol's own spec; the others seeded specs that some runs break.
      for (let seed = 0; seed <= 8; seed++) {
        const scenario = family.make(seed === 0 ? family.spec : seededInvariant(family, seed, 5))
        const full = explore(scenario, family.options)
        const reduced = explore({ ...scenario, symmetric: declared(family) }, family.options)
        expect(full.symmetry).toBeUndefined()
        expect(reduced.symmetry?.permutations).toBe(6)
        expect(reduced.counterexample === undefined, `seed ${seed}`).toBe(
          full.counterexample === undefined,
        )
        if (reduced.counterexample !== undefined) {
          found++
          // Found on a real path: its schedule replays to a violation.
          expect(replay(scenario, reduced.counterexample.schedule).violation).toBeDefined()
        } else {
          clean++
          expect(reduced.exhausted).toBe(full.exhausted)
          expect(reduced.states).toBeLessThan(full.states)
        }
      }
    })
  }

  it('saw both verdicts across the variants', () => {
    expect(found).toBeGreaterThan(10)
    expect(clean).toBeGreaterThan(10)
  })

  it('expands fewer states on every symmetric family, merging states', () => {
    for (const family of families()) {
      const scenario = family.make(() => undefined)
      const full = explore(scenario, family.options)
      const reduced = explore({ ...scenario, symmetric: declared(family) }, family.options)
      expect(reduced.states, family.name).toBeLessThan(full.states)
      expect(reduced.symmetry!.merged, family.name).toBeGreaterThan(0)
    }
  })

  it('refuses what it cannot relabel soundly', () => {
    const mutex = families()[3]!.make(() => undefined)
    const { relabel: _, ...bare } = mutex
    // Number ids without a hook: 1, 2, 3 are also the clocks in the snapshots.
    expect(() => explore({ ...bare, symmetric: true })).toThrow(/relabel hook/)
    expect(() =>
      explore({ ...mutex, symmetric: true }, { faults: { crash: 1 }, crashable: [1] }),
    ).toThrow(/crashable splits/)
    expect(() => explore({ ...mutex, symmetric: [[1, 7]] })).toThrow(/no node 7/)
    expect(() =>
      explore({ ...mutex, symmetric: true, liveness: { name: 'x', holds: () => true } }),
    ).toThrow(/liveness/)
  })

  it('renames strings equal to an id, as values and keys, and never numbers', () => {
    const swap = (s: string) => (s === 'b' ? 'c' : s === 'c' ? 'b' : s)
    expect(renameStrings({ b: 2, peers: ['b', 'c', 3], text: 'b>c', n: 1 }, swap)).toEqual({
      c: 2,
      peers: ['c', 'b', 3],
      text: 'b>c',
      n: 1,
    })
  })
})
