// Defect 5: a receiver answered at most one HELLO per 5 ms for a peer it had not confirmed yet, and
// forged or replayed HELLOs used up that slot, so a flood starved a fresh peer's handshake until it
// gave up. After the fix every authentic-looking HELLO is answered (to the address book, no larger
// than the HELLO), so the real one always is.
import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { UdpTransport } from '../../../src/udp/index.js'
import {
  Attacker,
  closeEverythingAfterEach,
  flood,
  forgeHello,
  inbox,
  LOOPBACK,
  node,
  pollUntil,
  type Sniffed,
  signalsOf,
  unreachable,
} from './support.js'

closeEverythingAfterEach()

const KEY = 'handshake-starvation-shared-key'
const TRIALS = 5
/** Per trial: at this rate it outlasts a's retries (about 13 s, 11 s to 13.3 s with jitter). */
const FLOOD = { perMs: 3.5, max: 50_000 }
/** a gives up after about 13 s with the default retransmit settings: wait well beyond that. */
const TRIAL_BOUND_MS = 60_000

/** One trial: a fresh a sends 5 messages to b while the flood runs; resolves with what happened. */
async function trial(hellos: Uint8Array[], key?: string) {
  const b = await node({ id: 'b', key })
  const a = await node({ id: 'a', key, peers: { b: `${LOOPBACK}:${b.address.port}` } })
  b.setPeer('a', `${LOOPBACK}:${a.address.port}`)
  const atB = inbox(b)
  const seen = signalsOf(a)
  let floodSent = 0
  const running = flood(hellos, b.address.port, FLOOD)
  try {
    // The flood is under way before a speaks, as it would be against a node that (re)joins.
    await pollUntil(() => b.stats.datagramsReceived >= 100, 'the flood to reach b', 30_000)
    for (let i = 0; i < 5; i++) a.send('b', i)
    await pollUntil(
      () => atB.length === 5 || unreachable(seen).length > 0,
      'the 5 messages at b, or a peer-unreachable at a',
      TRIAL_BOUND_MS,
    )
  } finally {
    floodSent = await running.stop()
    await a.close({ graceful: false })
    await b.close({ graceful: false })
  }
  return { atB, unreachable: unreachable(seen), floodSent }
}

/** TRIALS fresh peers under the flood: each must deliver its 5 messages and never give up. */
async function everyTrialGetsThrough(flood: Uint8Array[], key?: string): Promise<void> {
  for (let t = 1; t <= TRIALS; t++) {
    const outcome = await trial(flood, key)
    const what = `trial ${t} (${outcome.floodSent} HELLOs)`
    expect(outcome.unreachable, `${what}: peer-unreachable at a`).toEqual([])
    expect(outcome.atB, `${what}: messages at b`).toEqual([0, 1, 2, 3, 4])
  }
}

describe('defect 5: handshake starvation at first contact', () => {
  it(`a fresh peer gets through a flood of forged HELLOs (no key), ${TRIALS} trials of ${TRIALS}`, async () => {
    // Knowing only the ids: random incarnations, nonces and packet numbers.
    const forged = Array.from({ length: 1000 }, () =>
      forgeHello(
        { from: 'a', to: 'b' },
        {
          srcInc: randomInt(1, 0x1_0000_0000),
          dstInc: 0,
          pn: randomInt(0, 2 ** 47),
          nonce: randomInt(1, 0x1_0000_0000),
        },
      ),
    )
    await everyTrialGetsThrough(forged)
  }, 400_000)

  it(`with a key, a fresh peer gets through a replay of >64 captured HELLOs, ${TRIALS} trials of ${TRIALS}`, async () => {
    const captured = await captureHellos(100)
    const distinct = new Set(captured.map((s) => `${s.srcInc}:${s.pn}`))
    expect(distinct.size).toBeGreaterThan(64) // more than the receiver's memory of unconfirmed packet numbers
    await everyTrialGetsThrough(
      captured.map((s) => s.bytes),
      KEY,
    )
  }, 400_000)
})

/**
 * Authentic HELLOs from an earlier 'a' to 'b': that a challenges a silent address (our socket)
 * over and over with a tiny timeout, and we keep what it sends.
 */
async function captureHellos(count: number): Promise<Sniffed[]> {
  const sink = await Attacker.open()
  const early: UdpTransport = await node({
    id: 'a',
    key: KEY,
    peers: { b: `${LOOPBACK}:${sink.port}` },
    retransmit: { initialRtoMs: 1, minRtoMs: 1, maxRtoMs: 1, maxAttempts: 1000, jitter: 0 },
  })
  early.send('b', 'never answered')
  const hellos = () => sink.received.filter((s) => s.kind === 'hello' && s.to === 'b')
  await pollUntil(() => hellos().length >= count, `${count} captured HELLOs`, 60_000)
  await early.close({ graceful: false })
  await sink.close()
  return hellos().slice(0, count)
}
