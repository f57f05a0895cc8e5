/**
 * `coalesce` in the deterministic simulator: what one step sends to a peer leaves at the end of
 * the step (the harness's `flushSoon` timer of 0 ms), as one bundle with the acknowledgement owed.
 * The datagram counts fail when coalescing is switched off.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'
import { PacketType } from './wire/header.js'

const KEY = 'simulated-shared-key-0123456789'
const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const dataSent = (sim: SimLinks, id: string, since: number) =>
  sim
    .log(id)
    .transmitted.slice(since)
    .filter((x) => x.datagram[3] === PacketType.Data).length

/** A link from a to b, handshake done and quiet. */
function established(coalesce: boolean): SimLinks {
  const sim = new SimLinks(['a', 'b'], { coalesce }, { seed: 5, latency: 2 })
  sim.send('a', 'b', 'warm-up')
  sim.net.run()
  return sim
}

describe('coalesce: messages sent to one peer in one step leave together', () => {
  for (const [coalesce, datagrams] of [
    [true, 1],
    [false, 20],
  ] as const) {
    it(`20 messages sent in one step: ${datagrams} data datagram(s) with coalesce ${coalesce}, delivered in order`, () => {
      const sim = established(coalesce)
      const since = sim.log('a').transmitted.length
      sim.sendAll('a', 'b', texts('m', 20), sim.net.now)
      sim.net.run()
      expect(sim.texts('b', 'a')).toEqual(['warm-up', ...texts('m', 20)])
      expect(dataSent(sim, 'a', since)).toBe(datagrams)
      expect(sim.engine('a').stats.retransmissions).toBe(0)
    })
  }

  it('more than a datagram holds: as few full bundles as fit, in order', () => {
    const sim = established(true)
    const since = sim.log('a').transmitted.length
    const big = texts(`${'x'.repeat(100)}-`, 200) // about 107 bytes each, 10 to a bundle
    sim.sendAll('a', 'b', big, sim.net.now)
    sim.net.run()
    expect(sim.texts('b', 'a')).toEqual(['warm-up', ...big])
    const sent = dataSent(sim, 'a', since)
    expect(sent).toBeGreaterThanOrEqual(19)
    expect(sent).toBeLessThanOrEqual(22)
  })

  for (const [coalesce, perRequest] of [
    [true, 1],
    [false, 2],
  ] as const) {
    it(`an answer of two messages to each request: ${perRequest} datagram(s) per request with coalesce ${coalesce}, the acknowledgement on it`, () => {
      const sim = established(coalesce)
      sim.onDeliver = (self, _from, text, reply) => {
        if (self === 'b' && text.startsWith('req')) {
          reply(`${text}:first`)
          reply(`${text}:second`)
        }
      }
      const since = sim.log('b').transmitted.length
      const acksBefore = sim.engine('b').stats.acksSent
      const n = 10
      for (let i = 0; i < n; i++) sim.send('a', 'b', `req${i}`, sim.net.now + 20 * (i + 1))
      sim.net.run()
      expect(sim.texts('a', 'b')).toEqual(
        texts('req', n).flatMap((r) => [`${r}:first`, `${r}:second`]),
      )
      expect(dataSent(sim, 'b', since)).toBe(perRequest * n)
      // Every request's acknowledgement rode on its answer: b sent no acknowledgement alone.
      expect(sim.engine('b').stats.acksSent - acksBefore).toBe(0)
    })
  }

  it('bursts both ways under loss, duplication, reordering and jitter: every message exactly once, in order', () => {
    forSeeds(seedList(20), (seed) => {
      const sim = new SimLinks(
        ['a', 'b'],
        { key: seed % 2 === 0 ? KEY : undefined, coalesce: true },
        {
          seed,
          latency: { kind: 'uniform', min: 1, max: 20 },
          loss: 0.2,
          duplicate: 0.1,
          fifo: false,
        },
      )
      const sent = { a: [] as string[], b: [] as string[] }
      // Bursts of 1 to 40 messages, some long enough to be fragmented (never bundled).
      for (let burst = 0; burst < 30; burst++) {
        for (const from of ['a', 'b'] as const) {
          const size = 1 + ((seed * 7 + burst * 13) % 40)
          const filler = burst % 7 === 3 ? 'y'.repeat(1500) : ''
          const batch = texts(`${from}${burst}.${filler}`, size)
          sent[from].push(...batch)
          sim.sendAll(from, from === 'a' ? 'b' : 'a', batch, burst * 3)
        }
      }
      sim.net.run()
      expect(sim.texts('b', 'a')).toEqual(sent.a)
      expect(sim.texts('a', 'b')).toEqual(sent.b)
      for (const id of ['a', 'b']) {
        expect(sim.log(id).signals.filter((s) => s.type === 'peer-unreachable')).toEqual([])
        expect(sim.engine(id).unacknowledged()).toBe(0)
      }
      // Bundled: far fewer first transmissions of data than messages that fit a datagram whole.
      const whole = [...sent.a, ...sent.b].filter((t) => t.length < 1000).length
      const fragments = 2 * (sent.a.length + sent.b.length - whole)
      const retransmissions =
        sim.engine('a').stats.retransmissions + sim.engine('b').stats.retransmissions
      const first = dataSent(sim, 'a', 0) + dataSent(sim, 'b', 0) - retransmissions
      expect(first - fragments).toBeLessThan(whole / 10) // about 1/20 on these seeds
    })
  })
})
