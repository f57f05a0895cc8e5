/**
 * A link recovers at once when an outage ends. Losses shrink the congestion window (issue 20, hole
 * 4), but new data is not held by it: after a partition heals, the next message goes out at once
 * and its acknowledgement reveals what was lost. Held behind a shrunken window, it waited for a
 * backed-off probe timeout, up to maxRtoMs (2 s): an election over UDP saw followers rejoin their
 * leader 1 to 2.3 s after a heal instead of about 0.1 s.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'

const HEAL_AT = 5000
/** About one heartbeat period plus a few round trips: far below a backed-off probe timeout. */
const BOUND_MS = 250

describe('a link after an outage', () => {
  it('delivers the first message sent after a heal within a few round trips', () => {
    forSeeds(seedList(10), (seed) => {
      const sim = new SimLinks(
        ['a', 'b'],
        {},
        { seed, latency: { kind: 'uniform', min: 1, max: 3 } },
      )
      // Heartbeats both ways, as an election sends them.
      for (let t = 0; t < 8000; t += 20) {
        sim.send('a', 'b', `hb-${t}`, t)
        sim.send('b', 'a', `ack-${t}`, t)
      }
      // Losses first (the window shrinks), then a 3 s partition, then calm.
      sim.net.at(0, () => sim.net.setDefaultLink({ loss: 0.3 }))
      sim.net.at(2000, () => sim.net.setDefaultLink({ loss: 1 }))
      sim.net.at(HEAL_AT, () => sim.net.setDefaultLink({ loss: 0 }))
      sim.net.run({ until: HEAL_AT })
      expect(sim.engine('a').stats.retransmissions, `seed ${seed}`).toBeGreaterThan(10)
      let deliveredAt: number | undefined
      while (deliveredAt === undefined && sim.net.now < HEAL_AT + 3000 && sim.net.step()) {
        if (sim.texts('b', 'a').includes(`hb-${HEAL_AT}`)) deliveredAt = sim.net.now
      }
      expect(
        deliveredAt,
        `seed ${seed}: the heartbeat sent at the heal never arrived`,
      ).toBeDefined()
      expect(deliveredAt! - HEAL_AT, `seed ${seed}`).toBeLessThanOrEqual(BOUND_MS)
    })
  })
})
