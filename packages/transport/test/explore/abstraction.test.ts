/**
 * Key abstractions (`ExploreScenario.abstraction`): one that keeps everything, or never applies,
 * expands the same states as without, with the same verdicts; one that leaves out a dead value (a counter nothing reads) merges
 * states, with the same verdicts, and still reaches every abstract state the full search reaches
 * (each state's abstract key, taken by the invariant along both searches, gives the same set).
 */
import { describe, expect, it } from 'vitest'
import { flood, ricartAgrawala } from '../../../../test-support/explore-protocols.js'
import { type ExploreScenario, explore, type KeyAbstraction } from '../../src/explore/index.js'
import { hashHex } from '../../src/hash64.js'
import { type NodeId, type Protocol, SimNetwork } from '../../src/index.js'
import { collecting } from './support/abstract-keys.js'
import { broadcasts, configurations, once } from './support/configurations.js'
import { type AnyFactory, mutex } from './support/scenarios.js'

const keepAll: KeyAbstraction = {
  context: () => true,
  node: (_id, snapshot, storage) => ({ snapshot, storage }),
  message: (msg) => msg,
}

const never: KeyAbstraction = {
  context: () => undefined,
  node: () => null,
}

/**
 * The inner protocol, with the sender of its last message and the number of messages it handled
 * in its snapshot: values nothing reads (they change no step), so two states that differ only in
 * them have the same futures. The last sender differs between orderings that meet again.
 */
function counted(factory: AnyFactory): AnyFactory {
  return (self: NodeId) => {
    const inner = factory(self) as Protocol<unknown, unknown, string>
    let handled = 0
    let last: NodeId | null = null
    return {
      ...inner,
      start: (ctx) => inner.start?.(ctx),
      onMessage(from, msg, ctx) {
        handled++
        last = from
        inner.onMessage?.(from, msg, ctx)
      },
      snapshot: () => ({ inner: inner.snapshot?.() ?? null, handled, last }),
      restore(s) {
        const saved = s as { inner: unknown; handled: number; last: NodeId | null }
        handled = saved.handled
        last = saved.last
        inner.restore?.(saved.inner)
      },
    }
  }
}

/**
 * Leaves the last sender out once `from` messages were handled in all; the context is that total
 * (it varies from state to state, and a node's kept value with it).
 */
const deadCounter = (from: number): KeyAbstraction => ({
  context: (snapshot) => {
    let total = 0
    for (const id of [1, 2, 3, 4])
      total += (snapshot(id) as { handled: number } | undefined)?.handled ?? 0
    return total >= from ? total : undefined
  },
  node: (_id, snapshot, storage, context) => {
    const { inner, handled } = snapshot as { inner: unknown; handled: number }
    return { inner, handled, storage, context }
  },
})

describe('explore with a key abstraction', () => {
  for (const [name, scenario, options] of configurations) {
    it(`keeping everything, or never applying, expands the same states: ${name}`, () => {
      const plain = explore(scenario, options)
      for (const abstraction of [keepAll, never]) {
        const abstracted = explore({ ...scenario, abstraction }, options)
        expect(abstracted.states).toBe(plain.states)
        // A state met again re-explores its awake choices when sleep sets differ (labels may name
        // one choice two ways under an abstraction): more transitions, never fewer.
        expect(abstracted.transitions).toBeGreaterThanOrEqual(plain.transitions)
        expect(abstracted.exhausted).toBe(plain.exhausted)
        expect(abstracted.counterexample?.schedule).toBe(plain.counterexample?.schedule)
      }
    })
  }

  const dead: Array<[string, ExploreScenario]> = [
    ['flood, 4 nodes', once(4, counted(flood(true)))],
    ['mutex, 3 nodes', countedMutex(true)],
  ]
  for (const [name, base] of dead) {
    it(`leaving out a dead value merges states and reaches every abstract state: ${name}`, () => {
      for (const from of [0, 3]) {
        const abstraction = deadCounter(from)
        const full = collecting(base, abstraction)
        const merged = collecting({ ...base, abstraction }, abstraction)
        const a = explore(full.watched)
        const b = explore(merged.watched)
        expect(a.exhausted && b.exhausted).toBe(true)
        expect(b.counterexample).toBeUndefined()
        expect(a.counterexample).toBeUndefined()
        expect(b.states).toBeLessThan(a.states)
        expect([...merged.keys].sort()).toEqual([...full.keys].sort())
      }
    })
  }

  it('finds the same violations with the dead value left out', () => {
    for (const base of [once(3, counted(flood(false))), countedMutex(false)]) {
      const plain = explore(base, { depth: 20 })
      const merged = explore({ ...base, abstraction: deadCounter(0) }, { depth: 20 })
      expect(plain.counterexample).toBeDefined()
      expect(merged.counterexample?.message).toBe(plain.counterexample?.message)
    }
  })

  // Flooding with duplicates dropped: a node that has the value ignores what comes (no state
  // change, no send, no event), so every message to it is dead, all of a link's at once.
  const deafOnceSeen: KeyAbstraction = {
    context: (snapshot) => {
      let seen = 0
      for (const id of [1, 2, 3, 4])
        if ((snapshot(id) as { seen: boolean } | undefined)?.seen) seen |= 1 << id
      return seen
    },
    node: (_id, snapshot) => snapshot,
    message: (msg, _from, to, seen) =>
      ((seen as number) & (1 << (to as number))) !== 0 ? undefined : msg,
  }
  for (const fifo of [true, false]) {
    it(`leaving dead messages out merges states and reaches every abstract state: flood, ${fifo ? 'FIFO' : 'reordering'} links`, () => {
      const base = once(4, flood(true), fifo)
      const full = collecting(base, deafOnceSeen)
      const merged = collecting({ ...base, abstraction: deafOnceSeen }, deafOnceSeen)
      const a = explore(full.watched)
      const b = explore(merged.watched)
      expect(a.exhausted && b.exhausted).toBe(true)
      expect(a.counterexample ?? b.counterexample).toBeUndefined()
      expect(b.states).toBeLessThan(a.states)
      expect([...merged.keys].sort()).toEqual([...full.keys].sort())
    })
  }

  it('keys only what contextKey keeps of the context', () => {
    // Two networks whose nodes count from different starts: kept relative to node 1's count, with
    // the start in the context, they key alike only when the context's start is not keyed.
    const net = (start: number) => {
      const sim = new SimNetwork()
      sim.launch([1, 2], (self) => {
        const n = start + Number(self)
        const protocol: Protocol<unknown, unknown, string> = {
          onMessage() {},
          snapshot: () => ({ n }),
          restore() {},
        }
        return protocol
      })
      return sim
    }
    const relative = (keyed: boolean): KeyAbstraction => ({
      context: (snapshot) => (snapshot(1) as { n: number }).n,
      ...(keyed ? {} : { contextKey: () => 'relative' }),
      node: (_id, snapshot, _storage, base) => (snapshot as { n: number }).n - (base as number),
    })
    const key = (sim: SimNetwork, abstraction: KeyAbstraction) => {
      const h = { hi: 0, lo: 0 }
      expect(sim.keyHash(h, abstraction)).toBe(true)
      return hashHex(h)
    }
    const [a, b] = [net(5), net(9)]
    expect(key(a, relative(false))).toBe(key(b, relative(false)))
    expect(key(a, relative(true))).not.toBe(key(b, relative(true)))
    expect(key(a, relative(false))).not.toBe(key(b, keepAll))
  })

  it('refuses a FIFO link where a kept message waits behind a left-out one', () => {
    // Each node's first broadcast is left out, its second kept: on one link, the second waits.
    const firstOut: KeyAbstraction = {
      context: () => true,
      node: (_id, snapshot) => snapshot,
      message: (msg) => ((msg as { label: string }).label.endsWith('.1') ? undefined : msg),
    }
    expect(() => explore({ ...broadcasts(2, 2), abstraction: firstOut })).toThrow(
      /left out a message on the FIFO link .* ahead of one it keeps/,
    )
    // On links that reorder nothing waits behind anything: the key takes it (sound or not, as
    // here, is the abstraction's to prove).
    expect(() =>
      explore({ ...broadcasts(2, 2, false, false), abstraction: firstOut }),
    ).not.toThrow()
  })

  it('is refused with liveness goals', () => {
    const scenario = {
      ...once(3, counted(flood(true))),
      abstraction: keepAll,
      liveness: { name: 'anything', holds: () => true },
    }
    expect(() => explore(scenario)).toThrow(/abstraction/)
  })

  it('is refused with symmetry', () => {
    const scenario = {
      ...once(3, counted(flood(true))),
      abstraction: keepAll,
      symmetric: true,
      relabel: (data: unknown) => data,
    }
    expect(() => explore(scenario)).toThrow(/abstraction/)
  })
})

/** The test mutex of 3 nodes (`tieBreak` false: two can enter at once), counting its inputs. */
function countedMutex(tieBreak: boolean): ExploreScenario {
  const base = mutex(3, tieBreak)
  return { ...base, setup: (net) => void net.launch([1, 2, 3], counted(ricartAgrawala(tieBreak))) }
}
