import { createRandom, type SimNetworkOptions } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { bestOf } from '../src/contract.js'
import { ringElection } from '../src/ring/index.js'
import { runElection } from './support/harness.js'

/** n distinct ids in [0, 100), shuffled into no particular order. */
function randomIds(random: ReturnType<typeof createRandom>, n: number): number[] {
  const ids = new Set<number>()
  while (ids.size < n) ids.add(random.int(0, 99))
  return [...ids]
}

function pick<T>(random: ReturnType<typeof createRandom>, from: readonly T[], k: number): T[] {
  const pool = [...from]
  const out: T[] = []
  while (out.length < k && pool.length > 0)
    out.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!)
  return out
}

const jittery: SimNetworkOptions = { latency: { kind: 'uniform', min: 1, max: 10 } }

describe('ring election, properties', () => {
  it('crashed sets, random delays, several initiators: one leader, the best live one, agreed by all', () => {
    forSeeds(seedList(200), (seed) => {
      const random = createRandom(`ring-crashes/${seed}`)
      const n = random.int(2, 10)
      const ids = randomIds(random, n)
      const crashed = pick(random, ids, random.int(0, n - 1))
      const live = ids.filter((id) => !crashed.includes(id))
      const initiators = pick(random, live, random.int(1, Math.min(3, live.length)))
      const run = runElection(ids, ringElection(), {
        seed,
        net: jittery,
        until: 2_000,
        plan: (net) => {
          for (const id of crashed) net.crash(id)
          for (const id of initiators) net.request(id, { type: 'start' }, random.int(0, 30))
        },
      })
      expect(run.violations).toEqual([])
      const best = bestOf(live)
      expect(run.agreed?.leader).toBe(best)
      // Exactly one leader: nobody ever announced another one.
      const announced = new Set(
        run.events
          .map((e) => e.event)
          .filter((e) => e.type === 'leader')
          .map((e) => e.leader),
      )
      expect([...announced]).toEqual([best])
    })
  })

  it('crashes and recoveries during and after the election: safe, and all agree on the best live one at the end', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`ring-churn/${seed}`)
      const n = random.int(3, 9)
      const ids = randomIds(random, n)
      const victims = pick(random, ids, random.int(1, n - 1))
      const run = runElection(ids, ringElection(), {
        seed,
        net: jittery,
        until: 8_000,
        plan: (net) => {
          for (const id of pick(random, ids, random.int(1, 3))) {
            net.request(id, { type: 'start' }, random.int(0, 50))
          }
          for (const id of victims) {
            const at = random.int(0, 1_500)
            net.at(at, () => net.crash(id))
            if (random.next() < 0.5) net.at(at + random.int(50, 1_500), () => net.restart(id))
          }
        },
      })
      expect(run.violations).toEqual([])
      expect(run.live.length).toBeGreaterThan(0)
      expect(run.agreed?.leader).toBe(bestOf(run.live))
    })
  })

  it('false suspicions and false skips (long-tailed, reordered delays, tight timeouts): never two leaders in a term; agreement once delays are short again', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`ring-false/${seed}`)
      const n = random.int(3, 9)
      const ids = Array.from({ length: n }, (_, i) => i)
      const protocol = ringElection({
        ackTimeoutMs: 20,
        heartbeat: { intervalMs: 20, timeoutMs: 40 },
      })
      const run = runElection(ids, protocol, {
        seed,
        // A mean of 6 ms with a long tail: many ACKs and heartbeats come after the timeouts.
        net: { latency: { kind: 'exponential', mean: 6, min: 1 }, fifo: false, trace: false },
        until: 6_000,
        plan: (net) => {
          net.request(random.int(0, n - 1), { type: 'start' }, 0)
          net.request(random.int(0, n - 1), { type: 'start' }, 3)
          const victim = random.int(0, n - 1)
          net.at(random.int(0, 2_000), () => net.crash(victim))
          if (random.next() < 0.5) net.at(2_500, () => net.restart(victim))
          net.at(4_000, () => net.setDefaultLink({ latency: 1 }))
        },
      })
      expect(run.violations).toEqual([])
      expect(run.agreed?.leader).toBe(bestOf(run.live))
    })
  })
})
