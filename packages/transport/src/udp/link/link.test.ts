import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../../test-support/seeds.js'
import { createRandom } from '../../random.js'
import { RttEstimator } from '../rtt.js'
import {
  ackBlockBytes,
  encodableAckRanges,
  MAX_ACK_RANGES,
  readAckBlock,
  writeAckBlock,
} from '../wire/ack-block.js'
import { decodeBundle } from '../wire/header.js'
import { AckTracker } from './ack-tracker.js'
import { LossRecovery } from './loss-recovery.js'
import { newSegment, ReceiveLink, SendQueue, seqDiff } from './send-queue.js'

const noJitter = () => 0
/** A room too small for any bundle. */
const NO_BUNDLES = 0
const retransmit = { initialRtoMs: 100, minRtoMs: 10, maxRtoMs: 2000, maxAttempts: 10, jitter: 0 }

/** Every packet number the ranges cover. */
function covered(ranges: number[]): Set<number> {
  const out = new Set<number>()
  for (let k = 0; k < ranges.length; k += 2)
    for (let pn = ranges[k + 1]!; pn <= ranges[k]!; pn++) out.add(pn)
  return out
}

describe('acknowledgement ranges', () => {
  it('the tracker acknowledges exactly what arrived, and the block survives the wire', () => {
    forSeeds(seedList(200), (seed) => {
      const r = createRandom(seed).next
      const tracker = new AckTracker()
      const arrived = new Set<number>()
      for (let i = 0; i < 60; i++) {
        const pn = Math.floor(r() * 120)
        tracker.record(pn)
        arrived.add(pn)
      }
      const ranges = tracker.block()!
      const buf = Buffer.alloc(ackBlockBytes(ranges))
      expect(writeAckBlock(buf, 0, ranges)).toBe(buf.length)
      const read = readAckBlock(buf, 0, buf.length)
      if (typeof read === 'string') throw new Error(read)
      expect(read).toEqual(ranges)
      // Everything acknowledged arrived; what is left out is only the oldest, beyond the range cap.
      const acked = covered(read)
      for (const pn of acked) expect(arrived.has(pn)).toBe(true)
      const lowest = read[read.length - 1]!
      for (const pn of arrived) if (pn >= lowest) expect(acked.has(pn)).toBe(true)
      expect(read.length / 2 - 1).toBeLessThanOrEqual(MAX_ACK_RANGES)
    })
  })

  it('refuses blocks that claim numbers below zero or more ranges than allowed', () => {
    const buf = Buffer.alloc(9 + 4)
    buf.writeUIntBE(5, 0, 6)
    buf.writeUInt16BE(6, 6) // 6 below 5
    expect(readAckBlock(buf, 0, 9)).toBe('malformed')
    buf.writeUInt16BE(0, 6)
    buf[8] = MAX_ACK_RANGES + 1
    expect(readAckBlock(buf, 0, buf.length)).toBe('malformed')
    buf[8] = 1
    buf.writeUInt16BE(10, 9) // a gap that runs below zero
    expect(readAckBlock(buf, 0, buf.length)).toBe('malformed')
  })

  it('a first run longer than 16 bits is shortened, never misencoded', () => {
    expect(encodableAckRanges([200_000, 0])).toEqual([200_000, 200_000 - 0xffff])
  })
})

describe('loss recovery', () => {
  it('a round-trip sample after a timeout measures the probe, not the timeout (Karn)', () => {
    const rtt = new RttEstimator(retransmit)
    const recovery = new LossRecovery(rtt)
    const segment = newSegment(new Uint8Array(1), undefined, { payload: new Uint8Array(1) }, true)
    recovery.onSent(0, segment, 0, noJitter) // lost on the way
    expect(recovery.ptoAt).toBe(100) // no sample yet: the initial timeout
    recovery.onProbeTimeout(100, noJitter)
    recovery.onSent(1, segment, 100, noJitter) // the probe
    const lost: (typeof segment)[] = []
    expect(recovery.onAck([1, 1], 1, 110, noJitter, lost)).toBe(1)
    expect(rtt.srtt).toBe(10) // not 110
    expect(recovery.ptoCount).toBe(0)
    expect(lost).toEqual([])
  })

  it('declares a packet lost once three later ones are acknowledged, and only once', () => {
    const rtt = new RttEstimator(retransmit)
    const recovery = new LossRecovery(rtt)
    const payload = { payload: new Uint8Array(1) }
    const segments = [0, 1, 2, 3, 4].map(() =>
      newSegment(new Uint8Array(1), undefined, payload, true),
    )
    for (const [pn, s] of segments.entries()) recovery.onSent(pn, s, 0, noJitter)
    const lost: typeof segments = []
    recovery.onAck([2, 1], 4, 10, noJitter, lost) // two later ones: not yet (a reordering, perhaps)
    expect(lost).toEqual([])
    recovery.onAck([3, 3], 4, 10, noJitter, lost)
    expect(lost).toEqual([segments[0]])
    recovery.onAck([4, 1], 4, 11, noJitter, lost)
    expect(lost).toEqual([segments[0]])
  })

  it('ignores acknowledgements of packets never sent', () => {
    const recovery = new LossRecovery(new RttEstimator(retransmit))
    const s = newSegment(new Uint8Array(1), undefined, { payload: new Uint8Array(1) }, true)
    recovery.onSent(0, s, 0, noJitter)
    expect(recovery.onAck([7, 0], 0, 5, noJitter, [])).toBe(-1)
    expect(s.acked).toBe(false)
  })
})

describe('send queue and receive link', () => {
  it('compares sequence numbers across the 32-bit wrap', () => {
    expect(seqDiff(0, 0xffffffff)).toBe(1)
    expect(seqDiff(0xffffffff, 0)).toBe(-1)
  })

  it('limits the window by unacknowledged segments and the span by what the receiver buffers', () => {
    const q = new SendQueue()
    for (let i = 0; i < 10; i++) {
      const m = { payload: new Uint8Array(1) }
      q.enqueue(m, [newSegment(m.payload, undefined, m, true)])
    }
    expect(
      [q.launch(2, 4, NO_BUNDLES), q.launch(2, 4, NO_BUNDLES), q.launch(2, 4, NO_BUNDLES)].map(
        (s) => s?.seq,
      ),
    ).toEqual([0, 1, undefined])
    q.inFlight[1]!.acked = true // held behind a hole
    q.acknowledged(1)
    expect(q.launch(2, 4, NO_BUNDLES)?.seq).toBe(2)
    q.inFlight[2]!.acked = true
    q.acknowledged(1)
    expect(q.launch(2, 4, NO_BUNDLES)?.seq).toBe(3)
    q.inFlight[3]!.acked = true
    q.acknowledged(1)
    expect(q.launch(2, 4, NO_BUNDLES)).toBeUndefined() // span 0..3 is full while 0 is missing
    expect(q.release()).toBe(false)
    // A restart must resend what sits behind the hole too: the receiver never delivered it.
    expect(q.takeUnacknowledged()).toHaveLength(10)
  })

  it('bundles whole messages that waited together, up to the room, and settles them together', () => {
    const q = new SendQueue()
    const sizes = [100, 100, 100, 2000, 100]
    for (const size of sizes) {
      const m = { payload: new Uint8Array(size).fill(size & 0xff) }
      // The 2000-byte message stands for a fragment: it never joins a bundle.
      q.enqueue(m, [
        newSegment(m.payload, size > 1000 ? { msgId: 1, index: 0, count: 2 } : undefined, m, true),
      ])
    }
    const first = q.launch(8, 64, 250)! // room for two bundled 100-byte messages (2 + 100 each)
    expect(first.bundled).toHaveLength(2)
    expect(decodeBundle(first.payload)!.map((p) => p.length)).toEqual([100, 100])
    const second = q.launch(8, 64, 250)!
    expect(second.bundled).toBeUndefined() // alone: a fragment follows it
    expect(q.launch(8, 64, 250)!.frag).toBeDefined()
    expect(q.messages).toBe(5)
    first.acked = true
    q.acknowledged(1)
    q.release()
    expect(q.messages).toBe(3)
    expect(q.takeUnacknowledged().map((m) => m.payload.length)).toEqual([100, 2000, 100])
  })

  it('never bundles an empty message (receivers refuse bundles holding one)', () => {
    const q = new SendQueue()
    for (const size of [10, 0, 10, 10]) {
      const m = { payload: new Uint8Array(size) }
      q.enqueue(m, [newSegment(m.payload, undefined, m, true)])
    }
    const lengths = (s: ReturnType<SendQueue['launch']>) =>
      s!.bundled ? decodeBundle(s!.payload)!.map((p) => p.length) : [s!.payload.length]
    expect(lengths(q.launch(8, 64, 250))).toEqual([10])
    expect(lengths(q.launch(8, 64, 250))).toEqual([0])
    expect(lengths(q.launch(8, 64, 250))).toEqual([10, 10])
    expect(decodeBundle(Buffer.from([0, 1, 65, 0, 0]))).toBeUndefined()
  })

  it('delivers in order across the wrap, buffers early ones, refuses duplicates and far-ahead ones', () => {
    const link = new ReceiveLink<number>(4)
    link.expected = 0xfffffffe
    const out: number[] = []
    const deliver = (n: number) => out.push(n)
    const skip = () => {}
    expect(link.receive(0, 0xfffffffe, 3, deliver, skip)).toBeUndefined()
    expect(link.receive(0xfffffffe, 0xfffffffe, 1, deliver, skip)).toBeUndefined()
    expect(link.receive(0xfffffffe, 0xfffffffe, 1, deliver, skip)).toBe('duplicate')
    expect(link.refusal(5, 0xfffffffe)).toBe('out-of-window')
    expect(link.receive(0xffffffff, 0xfffffffe, 2, deliver, skip)).toBeUndefined()
    expect(out).toEqual([1, 2, 3])
    expect(link.expected).toBe(1)
  })
})
