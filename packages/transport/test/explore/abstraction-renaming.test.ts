/**
 * Key abstractions that rename nodes (`KeyAbstraction.renamings`): the key is the least over the
 * renamings given, so states that are renamings of each other key alike. On flooding, where the
 * nodes that did not start it are interchangeable, the search merges states and still reaches
 * every abstract state the full search reaches (each state's key under the abstraction, taken by
 * the invariant along both searches, gives the same set); what a renaming cannot hold is refused.
 */
import { describe, expect, it } from 'vitest'
import { flood } from '../../../../test-support/explore-protocols.js'
import {
  type ExploreScenario,
  explore,
  type KeyAbstraction,
  NO_RENAME,
  type Rename,
} from '../../src/explore/index.js'
import { hashHex } from '../../src/hash64.js'
import type { NodeId, Protocol, SimNetwork } from '../../src/index.js'
import { collecting } from './support/abstract-keys.js'
import { once } from './support/configurations.js'

/** Every renaming that permutes `group` and keeps the other ids. */
function permuting(group: number[]): Rename[] {
  const orders = (items: number[]): number[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((x, i) => orders(items.filter((_, j) => j !== i)).map((r) => [x, ...r]))
  return orders(group).map((order) => {
    const to = new Map(group.map((id, i) => [id, order[i]!]))
    return (id: NodeId) => to.get(id as number) ?? id
  })
}

/** Flooding, each node's snapshot also naming the sender it first heard the value from. */
function floodFrom(): (self: NodeId) => Protocol<unknown, never, string> {
  return (self) => {
    const inner = flood(true)(self) as Protocol<unknown, never, string>
    let from: NodeId | null = null
    return {
      ...inner,
      start: (ctx) => inner.start?.(ctx),
      onMessage(sender, msg, ctx) {
        from ??= sender
        inner.onMessage?.(sender, msg, ctx)
      },
      snapshot: () => ({ inner: inner.snapshot?.(), from }),
      restore(s) {
        const saved = s as { inner: unknown; from: NodeId | null }
        from = saved.from
        inner.restore?.(saved.inner)
      },
    }
  }
}

/** Nodes 2 to 4 are interchangeable: the ids inside a snapshot are renamed with them. */
const followers: KeyAbstraction = {
  context: () => true,
  renamings: () => permuting([2, 3, 4]),
  node: (_id, snapshot, _storage, _context, rename) => {
    const s = snapshot as { inner: unknown; from: NodeId | null }
    return { ...s, from: s.from === null ? null : rename(s.from) }
  },
}

/** The same abstraction, renaming nothing. */
const unrenamed: KeyAbstraction = { ...followers, renamings: () => undefined }

const scenario = (fifo = true): ExploreScenario => ({
  ...once(4, floodFrom(), fifo),
  history: () => null,
})

describe('explore with a key abstraction that renames nodes', () => {
  it('merges renamings of a state and reaches every abstract state', () => {
    for (const reduction of [true, false]) {
      const full = collecting(scenario(), followers)
      const merged = collecting({ ...scenario(), abstraction: followers }, followers)
      const a = explore(full.watched, { reduction })
      const b = explore(merged.watched, { reduction })
      const plain = explore({ ...scenario(), abstraction: unrenamed }, { reduction })
      expect(a.exhausted && b.exhausted && plain.exhausted).toBe(true)
      expect(a.counterexample ?? b.counterexample).toBeUndefined()
      expect(b.states).toBeLessThan(plain.states)
      expect([...merged.keys].sort()).toEqual([...full.keys].sort())
    }
  })

  it('keys a state and its renaming alike', () => {
    const keyOf = (net: SimNetwork, abstraction: KeyAbstraction) => {
      const h = { hi: 0, lo: 0 }
      expect(net.keyHash(h, abstraction)).toBe(true)
      return hashHex(h)
    }
    // Two states where node 2, then node 3, heard the value first; node 4 apart.
    const reached = new Map<string, string>()
    explore({
      ...scenario(),
      invariant({ net }) {
        const sim = net as SimNetwork
        const heard = sim
          .fingerprint()!
          .nodes.filter((n) => (n.state as { from: unknown }).from !== null)
        if (heard.length === 1) reached.set(String(heard[0]!.id), keyOf(sim, followers))
        return undefined
      },
    })
    expect(reached.get('2')).toBeDefined()
    expect(reached.get('2')).toBe(reached.get('3'))
  })

  it('refuses what a renaming cannot hold', () => {
    const broken: KeyAbstraction = { ...followers, renamings: () => [() => 2] }
    expect(() => explore({ ...scenario(), abstraction: broken })).toThrow(/not a bijection/)
    expect(() => explore({ ...scenario(false), abstraction: followers })).toThrow(/FIFO links/)
    const withHistory = { ...once(4, floodFrom()), abstraction: followers }
    expect(() => explore(withHistory)).toThrow(/without history/)
  })

  it('gives node and message no renaming outside renamings', () => {
    const seen: Rename[] = []
    const watching: KeyAbstraction = {
      context: () => true,
      node: (_id, snapshot, _storage, _context, rename) => {
        seen.push(rename)
        return snapshot
      },
    }
    explore({ ...scenario(), abstraction: watching })
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((r) => r === NO_RENAME)).toBe(true)
  })
})
