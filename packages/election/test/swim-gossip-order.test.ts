/**
 * The gossip queue picks the updates for a message by a running selection, not by sorting the
 * whole queue: over random queues, sends and `first` / `own` choices it must pick exactly what
 * the sort picked (own news first, then the least sent, then by id), and count the sends alike.
 */
import { compareNodeIds, createRandom, type NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { Gossip } from '../src/detector/swim/gossip.js'
import type { MemberUpdate } from '../src/detector/swim/members.js'

/** The order the queue was read in before: the whole queue sorted, the first `max` kept. */
class SortedGossip {
  readonly queue = new Map<NodeId, { update: MemberUpdate; sent: number }>()
  add(update: MemberUpdate): void {
    this.queue.set(update.node, { update, sent: 0 })
  }
  take(max: number, limit: number, first?: MemberUpdate, own?: NodeId): MemberUpdate[] {
    const out: MemberUpdate[] = first ? [first] : []
    const mine = (e: { update: MemberUpdate }) => (e.update.node === own ? 0 : 1)
    const picks = [...this.queue.values()]
      .filter((e) => e.update.node !== first?.node)
      .sort(
        (a, b) =>
          mine(a) - mine(b) || a.sent - b.sent || compareNodeIds(a.update.node, b.update.node),
      )
      .slice(0, max - out.length)
    for (const e of picks) {
      out.push(e.update)
      e.sent += 1
      if (e.sent >= limit) this.queue.delete(e.update.node)
    }
    return out
  }
}

describe('SWIM gossip: which updates ride on a message', () => {
  it('picks what sorting the whole queue picked, over many random queues', () => {
    forSeeds(seedList(60), (seed) => {
      const source = createRandom(`swim-gossip/${seed}`)
      const random = () => source.next()
      const pick = (n: number) => Math.floor(random() * n)
      const fast = new Gossip()
      const slow = new SortedGossip()
      const kinds = ['alive', 'suspect', 'dead'] as const
      const nodes = 5 + pick(60)
      for (let step = 0; step < 400; step++) {
        if (random() < 0.4) {
          const update: MemberUpdate = {
            kind: kinds[pick(3)]!,
            node: 1 + pick(nodes),
            incarnation: pick(4),
            from: 1 + pick(nodes),
          }
          fast.add(update)
          slow.add(update)
          continue
        }
        const max = 1 + pick(8)
        const limit = 1 + pick(5)
        const first: MemberUpdate | undefined =
          random() < 0.3
            ? { kind: 'suspect', node: 1 + pick(nodes), incarnation: 0, from: 1 }
            : undefined
        const own = random() < 0.5 ? 1 + pick(nodes) : undefined
        expect(fast.take(max, limit, first, own)).toEqual(slow.take(max, limit, first, own))
        expect(fast.size).toBe(slow.queue.size)
      }
    })
  })
})
