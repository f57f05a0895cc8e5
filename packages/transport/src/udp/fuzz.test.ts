import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CorpusTarget,
  inject,
  mutate,
  validDatagram,
} from '../../test/udp/support/fuzz-corpus.js'
import { createRandom } from '../random.js'
import { createUdpTransport, type UdpTransport } from './index.js'
import { decodeDatagram } from './wire/header.js'

const KEY = 'fuzzing-shared-key-0123456789abcdef'
// The claimed peer listens nowhere: answers to it (handshakes) go to a closed port and vanish.
const PEER = { id: 'p', address: '127.0.0.1:9' }
const PRE_AUTH = new Set([
  'oversized',
  'truncated',
  'malformed',
  'bad-version',
  'unauthenticated',
  'bad-mac',
])

let keyed: UdpTransport
let open: UdpTransport
let openReliable: UdpTransport
let keyedTarget: CorpusTarget
let openTarget: CorpusTarget
let delivered: unknown[] = []

beforeAll(async () => {
  const retransmit = { maxAttempts: 2, initialRtoMs: 5, minRtoMs: 5 }
  keyed = await createUdpTransport({ id: 'me', key: KEY, peers: { p: PEER.address }, retransmit })
  open = await createUdpTransport({
    id: 'me',
    reliable: false,
    peers: { p: PEER.address },
    retransmit,
  })
  openReliable = await createUdpTransport({ id: 'me', peers: { p: PEER.address }, retransmit })
  keyed.onMessage((_f, m) => delivered.push(m))
  keyedTarget = {
    id: 'me',
    incarnation: keyed.linkInfo('p')!.incarnation,
    peer: 'p',
    peerIncarnation: 0x1234,
    key: KEY,
    pn: counter(),
  }
  openTarget = {
    id: 'me',
    incarnation: open.linkInfo('p')!.incarnation,
    peer: 'p',
    peerIncarnation: 0x1234,
  }
  openTarget.pn = counter()
})
afterAll(async () => {
  await keyed.close({ graceful: false })
  await open.close({ graceful: false })
  await openReliable.close({ graceful: false })
})

/** Runs a property and prints the seed, so a failure replays with `{ seed, path }`. */
function check<T>(name: string, property: fc.IProperty<T>, numRuns: number): void {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 0x7fffffff)
  const result = fc.check(property, { seed, numRuns })
  if (result.failed) {
    throw new Error(
      `${name} failed; replay with FUZZ_SEED=${seed}\n${String(result.errorInstance)}\n${fc.defaultReportMessage(result)}`,
    )
  }
}

describe('fuzzing the UDP decoder and receive path', () => {
  it('the decoder never throws on random bytes', () => {
    check(
      'decode random bytes',
      fc.property(fc.uint8Array({ maxLength: 1600 }), (bytes) => {
        decodeDatagram(Buffer.from(bytes))
      }),
      20_000,
    )
  })

  it('random bytes are all dropped and counted, never delivered, never an internal error', () => {
    const before = keyed.stats
    let injected = 0
    check(
      'inject random bytes',
      fc.property(fc.uint8Array({ maxLength: 1600 }), (bytes) => {
        injected++
        const dropsBefore = keyed.stats.droppedTotal
        inject(keyed, Buffer.from(bytes))
        expect(keyed.stats.droppedTotal).toBe(dropsBefore + 1)
      }),
      10_000,
    )
    const after = keyed.stats
    expect(after.droppedTotal - before.droppedTotal).toBe(injected)
    expect(after.messagesDelivered).toBe(before.messagesDelivered)
    expect(after.internalErrors).toBe(0)
  })

  it('with a key, every forged (mutated) datagram is rejected before anything is trusted', () => {
    let forged = 0
    check(
      'forged datagrams',
      fc.property(fc.integer(), (seed) => {
        const r = createRandom(seed).next
        const bytes = mutate(r, validDatagram(r, keyedTarget))
        forged++
        const s0 = keyed.stats
        inject(keyed, bytes)
        const s1 = keyed.stats
        expect(s1.droppedTotal).toBe(s0.droppedTotal + 1)
        const reason = Object.keys(s1.dropped).find(
          (k) =>
            s1.dropped[k as keyof typeof s1.dropped] !== s0.dropped[k as keyof typeof s0.dropped],
        )
        expect(PRE_AUTH.has(reason!), `rejected as ${reason}`).toBe(true)
        expect(s1.messagesDelivered).toBe(s0.messagesDelivered)
      }),
      10_000,
    )
    expect(forged).toBe(10_000)
    expect(keyed.stats.internalErrors).toBe(0)
  })

  it('with a key, a datagram replayed byte for byte is always rejected', () => {
    check(
      'replayed datagrams',
      fc.property(fc.integer(), (seed) => {
        const r = createRandom(seed).next
        const bytes = validDatagram(r, keyedTarget)
        inject(keyed, bytes)
        const s0 = keyed.stats
        inject(keyed, Buffer.from(bytes))
        const s1 = keyed.stats
        expect(s1.droppedTotal).toBe(s0.droppedTotal + 1)
        expect(s1.messagesDelivered).toBe(s0.messagesDelivered)
      }),
      5_000,
    )
    expect(keyed.stats.dropped.replayed).toBeGreaterThan(0)
    expect(keyed.stats.internalErrors).toBe(0)
  })

  for (const mode of ['unreliable', 'reliable'] as const) {
    it(`without a key (${mode}), mutated datagrams never crash and memory stays bounded`, () => {
      const t = mode === 'reliable' ? openReliable : open
      const target = { ...openTarget, incarnation: t.linkInfo('p')!.incarnation }
      check(
        `mutated datagrams, no key, ${mode}`,
        fc.property(fc.integer(), fc.boolean(), (seed, damage) => {
          const r = createRandom(seed).next
          const valid = validDatagram(r, target)
          inject(t, damage ? mutate(r, valid) : valid)
        }),
        15_000,
      )
      const s = t.stats
      expect(s.internalErrors).toBe(0)
      expect(s.datagramsReceived).toBe(15_000)
      // Some got past every check (how many depends on the seed: a forged incarnation can win first).
      expect(s.droppedTotal).toBeLessThan(s.datagramsReceived)
      const peer = (
        t as unknown as {
          engine: {
            links: Map<string, { reassembly: { pending: number }; recv: { buffered: number } }>
          }
        }
      ).engine.links.get('p')!
      expect(peer.reassembly.pending).toBeLessThanOrEqual(8)
      expect(peer.recv.buffered).toBeLessThanOrEqual(1024)
    })
  }
})

afterAll(() => {
  delivered = []
})

function counter(): () => number {
  let n = 0
  return () => n++
}
