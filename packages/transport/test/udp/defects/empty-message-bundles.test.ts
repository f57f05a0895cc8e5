// Issue 20, hole 5: a key holder's bundle of ~565 zero-length messages cost ~565 thrown JSON.parse
// calls (3.85 ms of CPU per datagram instead of 8 us). Now a bundle holding an empty message is
// refused whole for the cost of reading its lengths, and a bundle whose first unreadable message
// fails to decode is dropped whole: one failed decode per datagram at most, counted in stats.
import type { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { UdpTransport } from '../../../src/udp/index.js'
import {
  Attacker,
  bundlePayload,
  closeEverythingAfterEach,
  forgeData,
  LOOPBACK,
  learnIncarnation,
  node,
} from './support.js'

closeEverythingAfterEach()

const KEY = 'empty-message-bundles-key-0123'
const INC = 0x2468ace
const PER_BATCH = 100
const ROUNDS = 4
/** Hostile datagrams may cost this many times a well-formed one of the same size (today: x400). */
const RATIO_BOUND = 8

/** CPU time (user + system, us) of `work`: robust to other processes, unlike wall time. */
function cpuMicros(work: () => void): number {
  const start = process.cpuUsage()
  work()
  const used = process.cpuUsage(start)
  return used.user + used.system
}

describe('issue 20 hole 5: CPU per hostile datagram is bounded by its size', () => {
  it('bundles of empty or unreadable messages cost about what a lossless datagram costs', async () => {
    const attacker = await Attacker.open()
    const b = await node({ id: 'b', key: KEY, peers: { a: `${LOOPBACK}:${attacker.port}` } })
    const claim = { from: 'a', to: 'b', key: KEY }
    const bInc = await learnIncarnation(attacker, b.address.port, claim, INC)
    attacker.recording = false

    // Straight into the socket's 'message' handler: the whole receive path, no kernel buffer to overflow.
    const socket = (b as unknown as { socket: EventEmitter }).socket
    const rinfo = { address: LOOPBACK, port: attacker.port, family: 'IPv4', size: 0 }
    const inject = (datagrams: Buffer[]) => {
      for (const d of datagrams) socket.emit('message', d, rinfo)
    }
    const turn = () => new Promise((resolve) => setImmediate(resolve))

    let pn = 1
    let seq = 0
    const data = (payload: Uint8Array, bundle: boolean) =>
      forgeData(claim, { srcInc: INC, dstInc: bInc, pn: pn++, seq: seq++, bundle }, payload)
    const lossless = Buffer.from(JSON.stringify('y'.repeat(1100)))
    const empties = bundlePayload(Array.from({ length: 565 }, () => new Uint8Array(0)))
    const unreadable = bundlePayload(Array.from({ length: 376 }, () => Buffer.from('x')))
    const batch = (payload: Uint8Array, bundle: boolean) =>
      Array.from({ length: PER_BATCH }, () => data(payload, bundle))

    // Built in the order they are injected (the link delivers in sequence order).
    const rounds = Array.from({ length: ROUNDS + 1 }, () => ({
      lossless: batch(lossless, false),
      empties: batch(empties, true),
      unreadable: batch(unreadable, true),
    }))
    const cost = { lossless: 0, empties: 0, unreadable: 0 }
    const before = b.stats
    for (const [index, round] of rounds.entries()) {
      const spent = {
        lossless: cpuMicros(() => inject(round.lossless)),
        empties: cpuMicros(() => inject(round.empties)),
        unreadable: cpuMicros(() => inject(round.unreadable)),
      }
      await turn() // owed acknowledgements leave between batches, outside the measurement
      if (index === 0) continue // warm-up
      cost.lossless += spent.lossless
      cost.empties += spent.empties
      cost.unreadable += spent.unreadable
    }
    const after = b.stats
    const n = (ROUNDS + 1) * PER_BATCH
    expect(after.messagesDelivered - before.messagesDelivered, 'lossless messages delivered').toBe(
      n,
    )
    expect(after.dropped.malformed - before.dropped.malformed, 'bundles with empty messages').toBe(
      n,
    )
    expect(
      after.dropped.undecodable - before.dropped.undecodable,
      'one failed decode per unreadable bundle',
    ).toBe(n)
    expect(
      (after as UdpTransport['stats'] & { bundledDropped?: number }).bundledDropped,
      'messages of unreadable bundles dropped unread',
    ).toBe(n * 375)

    const perDatagram = (us: number) => us / (ROUNDS * PER_BATCH)
    const report = `CPU per datagram: lossless ${perDatagram(cost.lossless).toFixed(1)} us, empty-message bundle ${perDatagram(cost.empties).toFixed(1)} us, unreadable bundle ${perDatagram(cost.unreadable).toFixed(1)} us`
    console.log(report)
    expect(cost.empties / cost.lossless, report).toBeLessThan(RATIO_BOUND)
    expect(cost.unreadable / cost.lossless, report).toBeLessThan(RATIO_BOUND)
  }, 120_000)
})
