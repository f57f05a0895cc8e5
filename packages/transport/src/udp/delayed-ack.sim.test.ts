/**
 * Delayed acknowledgements under the simulator, with lock-like request/response traffic: a client
 * requests, the coordinator grants at once, the client releases, and requests again. Counts
 * datagrams and retransmissions (never time).
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'

type LinkOptions = ConstructorParameters<typeof SimLinks>[1]

import type { SimNetworkOptions } from '../sim/index.js'

/** Runs `rounds` lock operations from 'c' (client) to 's' (coordinator) after a warm-up. */
function lockRounds(rounds: number, options: LinkOptions, net: SimNetworkOptions) {
  const sim = new SimLinks(['c', 's'], options, net)
  sim.send('c', 's', 'warm-up')
  sim.net.run()
  const sentBefore = { c: sim.log('c').transmitted.length, s: sim.log('s').transmitted.length }
  let done = 0
  sim.onDeliver = (self, from, text, reply, now) => {
    if (self === 's' && text.startsWith('request')) reply(`grant ${text.slice(8)}`)
    if (self === 'c' && text.startsWith('grant')) {
      done++
      sim.send('c', from, `release ${done}`, now + 1) // the client holds the lock 1 ms
      if (done < rounds) sim.send('c', from, `request ${done}`, now + 2)
    }
  }
  sim.send('c', 's', 'request 0')
  sim.net.run()
  const c = sim.engine('c')
  const s = sim.engine('s')
  return {
    done,
    released: sim.texts('s', 'c').filter((t) => t.startsWith('release')),
    datagrams:
      sim.log('c').transmitted.length -
      sentBefore.c +
      (sim.log('s').transmitted.length - sentBefore.s),
    retransmissions: c.stats.retransmissions + s.stats.retransmissions,
    unacknowledged: c.unacknowledged() + s.unacknowledged(),
  }
}

describe('delayed acknowledgements with request/response traffic', () => {
  const rounds = 50

  it('a lossless lock operation costs 3 datagrams instead of 5: the acks ride on the next request and grant', () => {
    const before = lockRounds(rounds, { maxAckDelayMs: 0 }, { seed: 1, latency: 1 })
    const after = lockRounds(rounds, { maxAckDelayMs: 5 }, { seed: 1, latency: 1 })
    for (const r of [before, after]) {
      expect(r.done).toBe(rounds)
      expect(r.released).toHaveLength(rounds)
      expect(r.unacknowledged).toBe(0)
      expect(r.retransmissions).toBe(0)
    }
    // request, grant (carries the ack), client's ack, release, coordinator's ack
    expect(before.datagrams).toBe(5 * rounds)
    // request, grant, release (carries the grant's ack); the last release's ack goes alone
    expect(after.datagrams).toBe(3 * rounds + 1)
  })

  it('never retransmits on a lossless network with jitter, even with the shortest probe timeouts', () => {
    forSeeds(seedList(10), (seed) => {
      const r = lockRounds(
        rounds,
        { maxAckDelayMs: 5, retransmit: { minRtoMs: 1 } },
        { seed, latency: { kind: 'uniform', min: 0.2, max: 2 } },
      )
      expect(r.done).toBe(rounds)
      expect(r.retransmissions).toBe(0)
    })
  })

  it('still completes every operation, in order, under loss, duplication and reordering', () => {
    forSeeds(seedList(10), (seed) => {
      const r = lockRounds(
        rounds,
        { maxAckDelayMs: 5 },
        {
          seed,
          latency: { kind: 'uniform', min: 0.5, max: 5 },
          loss: 0.2,
          duplicate: 0.1,
          fifo: false,
        },
      )
      expect(r.done).toBe(rounds)
      expect(r.released).toEqual(Array.from({ length: rounds }, (_, i) => `release ${i + 1}`))
      expect(r.unacknowledged).toBe(0)
    })
  })
})
