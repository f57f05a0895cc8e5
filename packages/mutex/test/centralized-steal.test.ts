import type { NodeId, ProtocolFactory, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { lockFeaturesOf, type MutexRequest } from '../src/contract.js'
import { modeSim } from './support/mode-sim.js'

/** The messages of `type` node `from` sent to `to`, and which of them were lost. */
function sends(net: SimNetwork, type: string, from: NodeId, to: NodeId) {
  const sent = net.trace.flatMap((e) =>
    e.type === 'send' &&
    e.from === from &&
    e.to === to &&
    (e.msg as { type?: unknown }).type === type
      ? [e]
      : [],
  )
  const dropped = new Set(net.trace.flatMap((e) => (e.type === 'drop' ? [e.id] : [])))
  return { sent, lost: sent.filter((e) => dropped.has(e.id)) }
}

describe('centralized: steal', () => {
  it('revokes every holder at once, and the stealer enters once they acknowledged; the queue stays', () => {
    const s = modeSim({ leaseMs: 200, maxDelayMs: 50 })
    s.acquire(2, 0, { mode: 'shared' })
    s.acquire(3, 0, { mode: 'shared' })
    s.acquire(4, 20) // a writer waits
    s.acquire(1, 40, { steal: true })
    s.release(1, 100)
    s.release(4, 200)
    const r = s.run()
    const stolen = r.of(1, 'stolen')
    expect(stolen.map((e) => [e.node, e.by, e.t])).toEqual([
      [2, 1, 40],
      [3, 1, 40],
    ])
    for (const node of [2, 3]) {
      // lease-lost (stolen), then released, and no RELEASE of its own later.
      const lost = r.events.filter((e) => e.node === node && e.t > 0).map((e) => e.event.type)
      expect(lost.slice(-2)).toEqual(['lease-lost', 'released'])
      expect(r.of(node, 'lease-lost')[0]).toMatchObject({ reason: 'stolen', t: 45 })
      expect(sends(s.net, 'stolen-ack', node, 1).sent.map((e) => e.t)).toEqual([45])
    }
    const mine = r.of(1, 'acquired')[0]!
    // The coordinator itself, once both acknowledgements came (STOLEN out and back: 2 x 5 ms).
    expect(mine.t).toBe(50)
    expect(mine.token).toBeGreaterThan(Math.max(...stolen.map((e) => e.token)))
    // The waiting writer was not dropped: it enters once the stealer leaves.
    expect(r.of(4, 'acquired')[0]!.t).toBeGreaterThan(100)
    expect(r.violations).toEqual([])
  })

  it('the coordinator itself as the victim acknowledges at once', () => {
    const s = modeSim()
    s.acquire(1, 0)
    s.acquire(1, 1) // it still wants the resource: asks again, behind the stealer
    s.acquire(3, 20, { steal: true })
    s.release(3, 60)
    const r = s.run()
    expect(r.of(1, 'lease-lost')).toEqual([expect.objectContaining({ reason: 'stolen', t: 25 })])
    expect(r.of(3, 'acquired')[0]!.t).toBe(30) // the GRANT's one message delay after the steal
    expect(r.entered).toEqual([1, 3, 1])
    expect(r.violations).toEqual([])
  })

  it('a victim cut off: the stealer enters once its lease can have run out, never before', () => {
    const s = modeSim({ leaseMs: 200, maxDelayMs: 50, resendEveryMs: 100 })
    s.acquire(2, 0)
    s.net.at(30, () => s.net.partition([2], [1, 3, 4]))
    s.acquire(3, 40, { steal: true })
    s.net.at(1000, () => s.net.heal())
    const r = s.run()
    const lost = r.of(2, 'lease-lost')
    expect(lost).toEqual([expect.objectContaining({ reason: 'expired' })])
    expect(r.of(1, 'lease-expired')).toEqual([expect.objectContaining({ node: 2 })])
    const entry = r.of(3, 'acquired')[0]!
    expect(entry.t).toBeGreaterThan(lost[0]!.t)
    expect(entry.t).toBeLessThan(1000) // not held back by the partition
    // STOLEN went again and again into the partition; once healed, the victim answers.
    expect(sends(s.net, 'stolen', 1, 2).sent.length).toBeGreaterThan(1)
    expect(r.violations).toEqual([])
  })

  it('a lost STOLEN is sent again, and the stealer waits for its acknowledgement', () => {
    const s = modeSim({ resendEveryMs: 100 }) // no leases: only the victim's word frees it
    s.acquire(2, 0)
    s.net.at(30, () => s.net.setLink(1, 2, { loss: 1 }, { oneWay: true }))
    s.net.at(60, () => s.net.setLink(1, 2, { loss: 0 }, { oneWay: true }))
    s.acquire(3, 40, { steal: true })
    const r = s.run()
    const stolen = sends(s.net, 'stolen', 1, 2)
    expect(stolen.lost).toHaveLength(1)
    expect(stolen.sent.length).toBeGreaterThan(1)
    const victimLeft = r.of(2, 'lease-lost')[0]!
    expect(victimLeft).toMatchObject({ reason: 'stolen' })
    expect(victimLeft.t).toBeGreaterThan(100) // the second STOLEN, not the first
    expect(r.of(3, 'acquired')[0]!.t).toBeGreaterThan(victimLeft.t)
    expect(r.violations).toEqual([])
  })

  it('two steals in a row: the second takes the resource from the first once it acknowledged', () => {
    const s = modeSim()
    s.acquire(2, 0)
    s.acquire(3, 20, { steal: true })
    s.acquire(4, 22, { steal: true })
    s.acquire(2, 24) // the first victim asks again: behind both steals
    s.release(4, 200)
    const r = s.run()
    expect(r.entered).toEqual([2, 3, 4, 2])
    expect(r.of(1, 'stolen').map((e) => [e.node, e.by])).toEqual([
      [2, 3],
      [3, 4],
    ])
    expect(r.of(3, 'lease-lost')).toEqual([expect.objectContaining({ reason: 'stolen' })])
    expect(r.of(4, 'acquired')[0]!.t).toBeGreaterThan(r.of(3, 'lease-lost')[0]!.t)
    expect(r.violations).toEqual([])
  })

  it('without leases, a crashed victim holds the stealer back (as any crashed holder)', () => {
    const s = modeSim({ resendEveryMs: 100 })
    s.acquire(2, 0)
    s.net.at(30, () => s.net.crash(2))
    s.acquire(3, 40, { steal: true })
    const r = s.run()
    expect(r.of(1, 'stolen')).toHaveLength(1)
    expect(r.of(3, 'acquired')).toEqual([])
  })

  it('a steal waiting across a change of coordinator is sent again as a steal, and steals again', () => {
    const s = modeSim({ resendEveryMs: 100 })
    s.acquire(2, 0)
    s.net.at(30, () => s.net.setLink(1, 2, { loss: 1 }, { oneWay: true })) // STOLEN lost
    s.acquire(3, 40, { steal: true })
    s.net.at(60, () => {
      for (const node of [1, 2, 3, 4]) s.net.request(node, { type: 'coordinator', id: 4, term: 1 })
    })
    const r = s.run()
    expect(r.of(1, 'stolen')).toEqual([expect.objectContaining({ node: 2, by: 3 })])
    // The new coordinator took the victim's claim, then the stealer's SYNC, still a steal.
    expect(r.of(4, 'stolen')).toEqual([expect.objectContaining({ node: 2, by: 3 })])
    const victimLeft = r.of(2, 'lease-lost')
    expect(victimLeft).toEqual([expect.objectContaining({ reason: 'stolen' })])
    const entry = r.of(3, 'acquired')
    expect(entry).toHaveLength(1)
    expect(entry[0]!.t).toBeGreaterThan(victimLeft[0]!.t)
    expect(r.violations).toEqual([])
  })

  it('a victim that still wants the resource asks again', () => {
    const s = modeSim()
    s.acquire(2, 0)
    s.acquire(2, 1) // a second acquire of node 2, waiting locally
    s.acquire(3, 20, { steal: true })
    s.release(3, 60)
    const r = s.run()
    expect(r.of(2, 'acquired')).toHaveLength(2)
    expect(r.of(2, 'acquired')[1]!.t).toBeGreaterThan(60)
  })
})

describe('centralized: ifAvailable', () => {
  it('is granted when free, and answered unavailable (nothing queued) when taken', () => {
    const s = modeSim()
    s.acquire(2, 0, { ifAvailable: true })
    s.acquire(3, 10, { ifAvailable: true })
    s.release(2, 50)
    s.acquire(4, 60)
    const r = s.run()
    expect(r.of(2, 'acquired')).toHaveLength(1)
    expect(r.of(3, 'unavailable')).toEqual([expect.objectContaining({ resource: 'default' })])
    expect(r.of(3, 'acquired')).toEqual([]) // not served later: it was forgotten
    expect(r.entered).toEqual([2, 4])
  })

  it('a shared ifAvailable joins readers, and respects the reader policy', () => {
    const s = modeSim()
    s.acquire(2, 0, { mode: 'shared' })
    s.acquire(3, 10, { mode: 'shared', ifAvailable: true })
    s.acquire(4, 20) // writer waits
    s.acquire(3, 40, { mode: 'shared', ifAvailable: true }) // fifo: behind the writer
    const r = s.run(500)
    expect(r.of(3, 'acquired')).toHaveLength(1)
    expect(r.of(3, 'unavailable')).toHaveLength(0) // the second waits locally: node 3 holds
  })

  it('is unavailable while a new coordinator recovers', () => {
    const s = modeSim({ leaseMs: 100, maxDelayMs: 50 })
    for (const node of [1, 2, 3, 4]) {
      s.net.request(node, { type: 'coordinator', id: 2, term: 1 }, 0)
    }
    s.net.at(1, () => s.net.crash(4)) // node 4 never answers RECOVER: recovery waits for leases
    s.acquire(3, 20, { ifAvailable: true })
    const r = s.run(1000)
    expect(r.of(3, 'unavailable')).toHaveLength(1)
  })

  it('under deny the answer is unavailable, not denied', () => {
    const s = modeSim({ whenBusy: 'deny' })
    s.acquire(2, 0)
    s.acquire(3, 10, { ifAvailable: true })
    const r = s.run(500)
    expect(r.of(3, 'unavailable')).toHaveLength(1)
    expect(r.of(3, 'denied')).toEqual([])
  })
})

describe('centralized: lock features', () => {
  it('is marked with what it honours, and still fits where a ProtocolFactory is expected', () => {
    const factory = centralized()
    expect(lockFeaturesOf(factory)).toEqual([
      'shared',
      'permits',
      'ifAvailable',
      'steal',
      'query',
      'views',
    ])
    const plain: ProtocolFactory<never, MutexRequest, { type: string }> = factory
    expect(typeof plain).toBe('function')
  })
})
