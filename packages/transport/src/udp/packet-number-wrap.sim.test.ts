/**
 * Issue 20, smaller point: packet numbers travel in 48 bits and nothing handled the wrap (about
 * 8.9 years of one link at a million datagrams per second, not "centuries"): past 2^48 - 1 the
 * number went out as 0 and the link died. Now a link near the wrap is renewed (a new incarnation of
 * ours, numbered from 0) and what it had not acknowledged goes on the new link.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'
import type { PeerLink } from './link/peer-link.js'
import { decodeDatagram } from './wire/header.js'

const KEY = 'packet-number-wrap-shared-key-01'

describe('48-bit packet numbers', () => {
  // With coalesce the renewal may happen while messages wait for the end of the step.
  it.each([false, true])(
    'a link whose numbers reach 2^48 goes on, renewed, and never puts a wrapped number on the wire (coalesce %s)',
    (coalesce) => {
      forSeeds(seedList(3), (seed) => {
        const sim = new SimLinks(['a', 'b'], { key: KEY, coalesce }, { seed, latency: 2 })
        const before = Array.from({ length: 10 }, (_, i) => `before-${i}`)
        const after = Array.from({ length: 300 }, (_, i) => `after-${i}`)
        before.forEach((t, i) => {
          sim.send('a', 'b', t, i)
        })
        let oldInc = 0
        sim.net.at(100, () => {
          const links = (sim.engine('a') as unknown as { links: Map<string, PeerLink> }).links
          const link = links.get('b')!
          oldInc = link.localInc
          link.nextPn = 2 ** 48 - 40 // as after years of traffic
        })
        after.forEach((t, i) => {
          sim.send('a', 'b', t, 101 + i / 4)
        })
        sim.net.run({ until: 60_000 })
        const atB = sim.texts('b', 'a')
        // Across the renewal delivery is at least once (as across a restart), in order on each side of it.
        const firsts = atB.filter((t, i) => atB.indexOf(t) === i)
        expect(firsts, `seed ${seed}`).toEqual([...before, ...after])
        const pns = sim.log('a').transmitted.map(({ datagram }) => {
          const d = decodeDatagram(datagram)
          if (typeof d === 'string') throw new Error(d)
          return { pn: d.pn, inc: d.srcInc }
        })
        expect(
          pns.filter((p) => p.inc !== oldInc).length,
          `seed ${seed}: datagrams of the renewed link`,
        ).toBeGreaterThan(0)
        expect(
          sim.log('a').signals.filter((s) => s.type === 'peer-unreachable'),
          `seed ${seed}`,
        ).toEqual([])
      })
    },
  )
})
