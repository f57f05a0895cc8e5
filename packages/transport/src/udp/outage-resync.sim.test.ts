/**
 * Issue 20, the other side of holes 2 and 3: packet numbers and `base` far beyond the window are
 * refused now, but a real peer gets there too, after a long one-way outage during which it kept
 * sending and gave up several times. A fresh handshake answer resynchronizes the link: what is sent
 * after the outage arrives, in order. In the simulator, over seeds.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'

const KEY = 'outage-resync-shared-key-012345'

describe('a long one-way outage (several give-ups) does not end the link', () => {
  it('after the outage, messages from the side that kept sending arrive in order', () => {
    forSeeds(seedList(3), (seed) => {
      const sim = new SimLinks(['a', 'b'], { key: KEY }, { seed, latency: 2 })
      const during = Array.from({ length: 3000 }, (_, i) => `during-${i}`)
      const after = Array.from({ length: 20 }, (_, i) => `after-${i}`)
      sim.send('a', 'b', 'before')
      sim.net.at(100, () => sim.net.setLink('a', 'b', { loss: 1 }, { oneWay: true }))
      during.forEach((t, i) => {
        sim.send('a', 'b', t, 100 + i * 20)
        sim.send('b', 'a', `b-${i}`, 100 + i * 20) // so a keeps acknowledging into the void
      })
      sim.net.at(70_000, () => sim.net.setLink('a', 'b', { loss: 0 }, { oneWay: true }))
      after.forEach((t, i) => {
        sim.send('a', 'b', t, 71_000 + i)
      })
      sim.net.run({ until: 200_000 })
      const gaveUp = sim.log('a').signals.filter((s) => s.type === 'peer-unreachable').length
      expect(gaveUp, `seed ${seed}: a gave up several times during the outage`).toBeGreaterThan(2)
      const atB = sim.texts('b', 'a')
      expect(atB[0], `seed ${seed}`).toBe('before')
      expect(atB.slice(-after.length), `seed ${seed}: what a sent after the outage`).toEqual(after)
      expect(sim.engine('b').stats.dropped.implausible, `seed ${seed}`).toBeGreaterThan(0)
    })
  })
})
