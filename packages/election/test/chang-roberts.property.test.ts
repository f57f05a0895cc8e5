import { createRandom } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type ChangRobertsEvent, changRoberts } from '../src/chang-roberts/index.js'
import { bestOf } from '../src/contract.js'
import { type ElectionRun, runElection } from './support/harness.js'

const leaders = (run: ElectionRun<ChangRobertsEvent>) =>
  new Set(ofType(run.events, 'leader').map((e) => e.event.leader))

describe('Chang-Roberts, properties', () => {
  it('random rings, delays and initiators, no failures: one leader, the best, agreed by all', () => {
    forSeeds(seedList(200), (seed) => {
      const random = createRandom(`cr/${seed}`)
      const n = random.int(1, 12)
      const ids = new Set<number>()
      while (ids.size < n) ids.add(random.int(0, 99))
      const ring = [...ids] // in no particular order
      const run = runElection(ring, changRoberts({ ring }), {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 }, fifo: random.next() < 0.5 },
        until: 2_000,
        plan: (net) => {
          for (let k = random.int(1, n); k > 0; k--) {
            net.request(ring[random.int(0, n - 1)]!, { type: 'start' }, random.int(0, 40))
          }
        },
      })
      expect(run.violations).toEqual([])
      expect(run.agreed?.leader).toBe(bestOf(ring))
      expect([...leaders(run)]).toEqual([bestOf(ring)])
    })
  })

  it('the leader crashes, and may come back: the followers pass over it, then it takes over again', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`cr-crash/${seed}`)
      const n = random.int(2, 10)
      const ids = Array.from({ length: n }, (_, i) => i)
      const back = random.next() < 0.5
      const run = runElection(ids, changRoberts({ startAll: true }), {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 } },
        until: 5_000,
        plan: (net) => {
          net.at(random.int(300, 1_000), () => net.crash(n - 1))
          if (back) net.at(random.int(2_000, 3_000), () => net.restart(n - 1))
        },
      })
      expect(run.violations).toEqual([])
      expect(run.agreed?.leader).toBe(bestOf(run.live))
      expect(leaders(run).has(n - 2)).toBe(true)
    })
  })

  it('false suspicions (long-tailed delays, a tight timeout): never two leaders in a term; agreement once delays are short again', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`cr-false/${seed}`)
      const n = random.int(2, 9)
      const ids = Array.from({ length: n }, (_, i) => i)
      const protocol = changRoberts({
        startAll: true,
        heartbeat: { intervalMs: 20, timeoutMs: 40 },
        electionTimeoutMs: 500,
      })
      const run = runElection(ids, protocol, {
        seed,
        net: { latency: { kind: 'exponential', mean: 6, min: 1 }, fifo: false, trace: false },
        until: 6_000,
        plan: (net) => net.at(random.int(3_000, 4_000), () => net.setDefaultLink({ latency: 1 })),
      })
      expect(run.violations).toEqual([])
      expect(run.agreed?.leader).toBe(n - 1)
    })
  })
})
