/**
 * Issue 20, hole 4: an acknowledgement naming only the newest packet made the sender declare every
 * older one lost and resend the whole flight: 889 KB of forged acks produced 627 MB toward the peer,
 * and goodput fell about 650-fold. Now losses shrink a congestion window and at most a window of
 * retransmissions leaves per round trip. Measured in the simulator (virtual time, deterministic):
 * bytes resent per byte of forged acknowledgement, and goodput against the same run without attack.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { SimLinks } from '../../test/udp/support/sim-link.js'
import { Authenticator } from './auth.js'
import { MIN_WINDOW } from './link/loss-recovery.js'
import {
  decodeDatagram,
  encodeDatagram,
  encodeIdField,
  MAC_BYTES,
  PacketType,
} from './wire/header.js'

const KEY = 'forged-ack-storm-shared-key-0123'
const MESSAGES = 3000
const ATTACK_FROM = 20
const ATTACK_UNTIL = 2020
/** Under a flood of forged acknowledgements, bytes resent per forged byte, at most (before the fix: thousands). */
const AMPLIFICATION_BOUND = 8
/**
 * Retransmissions per round of MIN_RTO_MS, at most: one window per round, the window halved by
 * each forged round and grown back only by real acknowledgements of the data that keeps flowing
 * (new data is not held by the congestion window, so a link recovers at once after an outage).
 */
const RESENT_PER_ROUND = 3 * MIN_WINDOW
/** The default floor of the probe timeout: a round of retransmissions lasts at least this long. */
const MIN_RTO_MS = 10

interface Outcome {
  resentBytes: number
  resentDatagrams: number
  forgedBytes: number
  deliveredDuringAttack: number
}

/** A run where a forger acknowledges a's newest packet every `every` ms (never when 0). */
function run(seed: number, every: number): Outcome {
  const sim = new SimLinks(
    ['a', 'b'],
    { key: KEY },
    { seed, latency: { kind: 'uniform', min: 1, max: 3 } },
  )
  const pad = 'x'.repeat(1000) // one datagram per message
  for (let i = 0; i < MESSAGES; i++) sim.send('a', 'b', `${i}:${pad}`, i / 2)
  // b talks back a little, so a learns b's incarnation as a real peer's traffic shows it.
  for (let i = 0; i < 10; i++) sim.send('b', 'a', `hi-${i}`, i)
  const auth = new Authenticator(KEY)
  const decoded = (datagram: Buffer) => {
    const d = decodeDatagram(datagram)
    if (typeof d === 'string') throw new Error(d)
    return d
  }
  let forgedBytes = 0
  let forgedPn = 0
  if (every > 0) {
    for (let t = ATTACK_FROM; t < ATTACK_UNTIL; t += every) {
      sim.net.at(t, () => {
        const fromA = sim.log('a').transmitted
        const fromB = sim.log('b').transmitted
        if (fromA.length === 0 || fromB.length === 0) return
        const newest = decoded(fromA.at(-1)!.datagram)
        const ofB = decoded(fromB.at(-1)!.datagram)
        forgedPn = Math.max(forgedPn, ofB.pn) + 1
        const forged = encodeDatagram(
          {
            type: PacketType.Ack,
            srcInc: ofB.srcInc,
            dstInc: ofB.dstInc,
            pn: forgedPn,
            srcIdField: encodeIdField('b'),
            dstIdField: encodeIdField('a'),
            ack: [newest.pn, newest.pn], // only the newest: everything older looks lost
          },
          undefined,
          MAC_BYTES,
        )
        auth.sign(forged)
        forgedBytes += forged.length
        sim.inject('a', forged)
      })
    }
  }
  let deliveredDuringAttack = 0
  sim.net.at(ATTACK_UNTIL, () => {
    deliveredDuringAttack = sim.texts('b', 'a').length
  })
  sim.net.run({ until: 120_000 })
  // Resent: data datagrams from a whose sequence number had been sent before.
  const sentSeqs = new Set<number>()
  let resentBytes = 0
  let resentDatagrams = 0
  for (const { datagram } of sim.log('a').transmitted) {
    const d = decoded(datagram)
    if (d.type !== PacketType.Data) continue
    if (sentSeqs.has(d.seq)) {
      resentBytes += datagram.length
      resentDatagrams++
    }
    sentSeqs.add(d.seq)
  }
  const delivered = sim.texts('b', 'a').map((t) => Number(t.split(':')[0]))
  expect(delivered, `seed ${seed}: every message delivered once, in order, in the end`).toEqual([
    ...Array(MESSAGES).keys(),
  ])
  return { resentBytes, resentDatagrams, forgedBytes, deliveredDuringAttack }
}

describe('issue 20 hole 4: forged acknowledgements naming only the newest packet', () => {
  it(`resend at most ${RESENT_PER_ROUND} datagrams per round trip, and at most ${AMPLIFICATION_BOUND} bytes per forged byte under a flood`, () => {
    forSeeds(seedList(3), (seed) => {
      const calm = run(seed, 0)
      const rounds = (ATTACK_UNTIL - ATTACK_FROM) / MIN_RTO_MS
      for (const every of [1, 10]) {
        const attacked = run(seed, every)
        const extra = attacked.resentBytes - calm.resentBytes
        const amplification = extra / attacked.forgedBytes
        const slowdown = calm.deliveredDuringAttack / Math.max(1, attacked.deliveredDuringAttack)
        const report = `seed ${seed}, a forged ack every ${every} ms: ${attacked.forgedBytes} forged bytes -> ${attacked.resentBytes} bytes resent in ${attacked.resentDatagrams} datagrams (calm run ${calm.resentBytes}): ${amplification.toFixed(2)} bytes resent per forged byte; delivered during the attack ${attacked.deliveredDuringAttack} vs ${calm.deliveredDuringAttack} (slowdown x${slowdown.toFixed(1)})`
        console.log(report)
        // Whatever the forger's rate: a window of retransmissions per round, the window kept small.
        expect(attacked.resentDatagrams, report).toBeLessThanOrEqual(RESENT_PER_ROUND * rounds)
        if (every === 1) expect(amplification, report).toBeLessThanOrEqual(AMPLIFICATION_BOUND)
        expect(slowdown, report).toBeLessThanOrEqual(10)
      }
    })
  })
})
