/**
 * Admission (the `admit` option) in the link engine under the deterministic simulator: a node
 * that knows nobody learns whoever talks to it, answers them, and keeps its address book bounded
 * and unhijackable. A failure names its seed.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { type HarnessOptions, SimLinks } from '../../test/udp/support/sim-link.js'
import { Authenticator } from './auth.js'
import { encodeDatagram, encodeIdField, MAC_BYTES, PacketType } from './wire/header.js'

const KEY = 'simulated-shared-key-0123456789'
const everyone = () => true
/** 's' (the seed) starts knowing nobody; every other node knows only 's'. */
const seedOnly: HarnessOptions['knows'] = (self) => (self === 's' ? [] : ['s'])
const learned = (sim: SimLinks, id: string) =>
  sim.log(id).signals.filter((s) => s.type === 'peer-learned')
const unreachable = (sim: SimLinks, id: string) =>
  sim.log(id).signals.filter((s) => s.type === 'peer-unreachable')

/** The seed answers every message with `re:` + it, through the link it just learned. */
function echoAtSeed(sim: SimLinks) {
  sim.onDeliver = (self, _from, text, reply) => {
    if (self === 's') reply(`re:${text}`)
  }
}

describe('admission: a node learns senders it was not told about', () => {
  it('a seed learns joiners at their source address and answers them, under loss, with and without a key', () => {
    forSeeds(seedList(12), (seed) => {
      const key = seed % 2 === 0 ? KEY : undefined
      const sim = new SimLinks(
        ['s', 'j1', 'j2'],
        { key, admit: everyone, knows: seedOnly },
        { seed, latency: { kind: 'uniform', min: 1, max: 10 }, loss: 0.2, fifo: false },
      )
      echoAtSeed(sim)
      for (const j of ['j1', 'j2']) for (let i = 0; i < 5; i++) sim.send(j, 's', `${j}-${i}`, i)
      sim.net.run()
      for (const j of ['j1', 'j2']) {
        const sent = Array.from({ length: 5 }, (_, i) => `${j}-${i}`)
        expect(sim.texts('s', j)).toEqual(sent)
        expect(sim.texts(j, 's')).toEqual(sent.map((t) => `re:${t}`))
        expect(unreachable(sim, j)).toEqual([])
      }
      // Learned once each (retransmissions and duplicates meet a known id), at the source address.
      expect(learned(sim, 's')).toEqual(
        expect.arrayContaining([
          { type: 'peer-learned', peer: 'j1', address: 'j1:1' },
          { type: 'peer-learned', peer: 'j2', address: 'j2:1' },
        ]),
      )
      expect(learned(sim, 's')).toHaveLength(2)
      expect(sim.engine('s').stats.peersLearned).toBe(2)
      expect(sim.engine('s').learnedPeers).toBe(2)
    })
  })

  it('without admit, an unknown sender is dropped and its sender gives up', () => {
    const sim = new SimLinks(['s', 'j1'], { knows: seedOnly, retransmit: { maxAttempts: 3 } })
    sim.send('j1', 's', 'hello')
    sim.net.run()
    expect(sim.texts('s', 'j1')).toEqual([])
    expect(sim.engine('s').stats.dropped['unknown-sender']).toBeGreaterThan(0)
    expect(sim.engine('s').hasPeer('j1')).toBe(false)
    expect(unreachable(sim, 'j1')).toHaveLength(1)
  })

  it('the predicate decides who joins; refusals are counted', () => {
    const sim = new SimLinks(['s', 'j1', 'j2'], {
      admit: (id, address) => id === 'j1' && address === 'j1:1',
      knows: seedOnly,
      retransmit: { maxAttempts: 3 },
    })
    sim.send('j1', 's', 'in')
    sim.send('j2', 's', 'out')
    sim.net.run()
    expect(sim.texts('s', 'j1')).toEqual(['in'])
    expect(sim.texts('s', 'j2')).toEqual([])
    expect(sim.engine('s').peerIds).toEqual(['j1'])
    expect(sim.engine('s').stats.admissionsRefused).toBeGreaterThan(0)
  })

  it('maxLearnedPeers bounds the learned peers; removePeer gives the room back', () => {
    const sim = new SimLinks(['s', 'j1', 'j2'], {
      admit: everyone,
      maxLearnedPeers: 1,
      knows: seedOnly,
      retransmit: { maxAttempts: 3 },
    })
    sim.send('j1', 's', 'first')
    sim.send('j2', 's', 'second', 1)
    sim.net.run()
    expect(sim.texts('s', 'j1')).toEqual(['first'])
    expect(sim.texts('s', 'j2')).toEqual([])
    expect(sim.engine('s').learnedPeers).toBe(1)
    expect(sim.engine('s').removePeer('j1')).toBe(true)
    expect(sim.engine('s').learnedPeers).toBe(0)
    sim.send('j2', 's', 'again', sim.net.now + 1)
    sim.net.run()
    expect(sim.texts('s', 'j2')).toEqual(['again'])
    expect(sim.engine('s').peerIds).toEqual(['j2'])
  })

  it('a flood of invented ids fills at most maxLearnedPeers; with a key, forged ones none', () => {
    for (const key of [undefined, KEY]) {
      const sim = new SimLinks(['s', 'm'], { key, admit: everyone, maxLearnedPeers: 8 })
      // Without the key the attacker signs nothing: with a key set, nothing of it passes the MAC.
      for (let i = 0; i < 200; i++) sim.inject('s', helloFrom(`fake-${i}`, 's', i), i / 10, 'm')
      sim.net.run()
      const s = sim.engine('s')
      expect(s.learnedPeers, `key ${key !== undefined}`).toBe(key === undefined ? 8 : 0)
      expect(s.peerIds.length).toBeLessThanOrEqual(1 + 8)
      if (key === undefined) expect(s.stats.admissionsRefused).toBe(200 - 8)
      else expect(s.stats.dropped.unauthenticated).toBe(200)
    }
  })

  it('a key holder joins; a known id speaking from another address does not move it (no hijack)', () => {
    const sim = new SimLinks(['s', 'j1', 'm'], {
      key: KEY,
      admit: everyone,
      knows: (self) => (self === 'm' ? [] : self === 's' ? ['j1'] : ['s']),
    })
    // 'm' holds the key and claims to be j1 from its own address.
    sim.inject('s', helloFrom('j1', 's', 1, KEY), 0, 'm')
    sim.net.run()
    expect(learned(sim, 's')).toEqual([])
    // The answer went to the address the book has for j1, not to the claimant.
    const answers = sim.log('s').transmitted.filter((t) => t.to === 'm')
    expect(answers).toEqual([])
    expect(sim.log('s').transmitted.some((t) => t.to === 'j1')).toBe(true)
  })
})

/** A handshake challenge from `from` to `to`, signed when `key` is given. */
function helloFrom(from: string, to: string, i: number, key?: string) {
  const datagram = encodeDatagram(
    {
      type: PacketType.Hello,
      srcInc: 0x1000_0000 + i,
      dstInc: 0,
      pn: i,
      srcIdField: encodeIdField(from),
      dstIdField: encodeIdField(to),
      nonce: i + 1,
    },
    undefined,
    key === undefined ? 0 : MAC_BYTES,
  )
  if (key !== undefined) new Authenticator(key).sign(datagram)
  return datagram
}
