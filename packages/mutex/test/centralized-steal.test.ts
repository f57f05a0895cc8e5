import { faultsOf, type ProtocolFactory } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'
import { lockFeaturesOf, type MutexRequest } from '../src/contract.js'
import { stolenEndAtSteal } from './support/mode-runs.js'
import { modeSim } from './support/mode-sim.js'

describe('centralized: steal', () => {
  it('takes the resource from every holder at once, with a higher token; the queue stays', () => {
    const s = modeSim({ leaseMs: 200, maxDelayMs: 50 })
    s.acquire(2, 0, { mode: 'shared' })
    s.acquire(3, 0, { mode: 'shared' })
    s.acquire(4, 20) // a writer waits
    s.acquire(1, 40, { steal: true })
    s.release(1, 100)
    s.release(4, 200)
    const r = s.run()
    const stolen = r.of(1, 'stolen')
    expect(stolen.map((e) => [e.node, e.by])).toEqual([
      [2, 1],
      [3, 1],
    ])
    for (const node of [2, 3]) {
      // lease-lost (stolen), then released, and no RELEASE of its own later.
      const lost = r.events.filter((e) => e.node === node && e.t > 0).map((e) => e.event.type)
      expect(lost.slice(-2)).toEqual(['lease-lost', 'released'])
      expect(r.of(node, 'lease-lost')[0]).toMatchObject({ reason: 'stolen' })
    }
    const mine = r.of(1, 'acquired')[0]!
    expect(mine.t).toBe(40) // the coordinator itself: at once
    expect(mine.token).toBeGreaterThan(Math.max(...stolen.map((e) => e.token)))
    // The waiting writer was not dropped: it enters once the stealer leaves.
    expect(r.of(4, 'acquired')[0]!.t).toBeGreaterThan(100)
    // The steal overlaps the victims until they hear of it: judged from the steal on, no overlap.
    expect(r.violations.length).toBeGreaterThan(0)
    const judged = stolenEndAtSteal(r.events)
    expect(judged.lateStolen).toBe(0)
    expect(checkMutualExclusion(judged.events, faultsOf(s.net.trace)).violations).toEqual([])
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
    expect(lockFeaturesOf(factory)).toEqual(['shared', 'permits', 'ifAvailable', 'steal'])
    const plain: ProtocolFactory<never, MutexRequest, { type: string }> = factory
    expect(typeof plain).toBe('function')
  })
})
