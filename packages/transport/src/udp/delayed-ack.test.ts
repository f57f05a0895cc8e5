/**
 * Delayed acknowledgements (maxAckDelayMs), step by step: two engines wired by hand, every
 * datagram carried (or dropped) by the test, time moved by the test. Virtual time only.
 */
import { describe, expect, it } from 'vitest'
import type { NodeId } from '../ids.js'
import { LinkEngine } from './engine.js'
import { resolveOptions, type UdpTransportOptions } from './options.js'
import { decodeDatagram, PacketType } from './wire/header.js'

type Options = Omit<UdpTransportOptions<never>, 'id'>

interface Sent {
  from: NodeId
  type: PacketType
  /** Carries an acknowledgement (an Ack, or data with one piggybacked). */
  acks: boolean
  at: number
}

/**
 * Two engines, 'a' and 'b', 1 ms apart: a datagram sent during one millisecond arrives at the
 * next tick, where the test may first drop or reorder it (in `inFlight`).
 */
class Pair {
  now = 0
  readonly sent: Sent[] = []
  readonly inFlight = new Map<NodeId, Buffer[]>([
    ['a', []],
    ['b', []],
  ])
  private readonly flushOwed = new Set<NodeId>()
  private readonly engines = new Map<NodeId, LinkEngine>()

  constructor(options: Options = {}) {
    const resolved = resolveOptions({ id: 'x', ...options })
    let draws = 0
    for (const self of ['a', 'b'] as const) {
      const peer = self === 'a' ? 'b' : 'a'
      const engine = new LinkEngine(
        self,
        resolved,
        undefined,
        {
          transmit: (_address, datagram) => {
            const d = decodeDatagram(datagram)
            if (typeof d === 'string') throw new Error(d)
            this.sent.push({ from: self, type: d.type, acks: d.ack !== undefined, at: this.now })
            this.inFlight.get(peer)!.push(datagram)
          },
          deliver: () => true,
          signal: () => {},
          dropped: () => {},
          wake: () => {}, // every tick runs the timers anyway
          flushSoon: () => this.flushOwed.add(self),
        },
        { u32: () => 1000 + ++draws, unit: () => 0 },
      )
      engine.setPeer(peer, { host: peer, port: 1 })
      this.engines.set(self, engine)
    }
  }

  engine(id: NodeId): LinkEngine {
    return this.engines.get(id)!
  }

  /** One millisecond: what was in flight arrives (one batch per node), then the timers run. */
  tick(): void {
    this.now++
    // Taken first: what is sent during this tick arrives at the next.
    const arriving = ['a', 'b'].map((to) => [to, this.inFlight.get(to)!.splice(0)] as const)
    for (const [to, batch] of arriving) {
      for (const datagram of batch) this.engine(to).receive(datagram, this.now)
      if (this.flushOwed.delete(to)) this.engine(to).flush(this.now)
    }
    for (const engine of this.engines.values()) engine.onTimer(this.now)
  }

  /** Ticks up to time `t`. */
  runTo(t: number): void {
    while (this.now < t) this.tick()
  }

  send(from: NodeId, text: string): void {
    const to = from === 'a' ? 'b' : 'a'
    this.engine(from).send(to, Buffer.from(text), this.now)
  }

  /** What `from` sent from time `since` on. */
  sentBy(from: NodeId, since: number): Sent[] {
    return this.sent.filter((s) => s.from === from && s.at >= since)
  }
}

/** An established link, quiet at time 100: handshake done, warm-up message acknowledged. */
function established(options: Options = {}): Pair {
  const pair = new Pair(options)
  pair.send('a', 'warm-up')
  pair.runTo(100)
  expect(pair.engine('a').unacknowledged()).toBe(0)
  expect(pair.inFlight.get('a')).toEqual([])
  expect(pair.inFlight.get('b')).toEqual([])
  return pair
}

const ack = (at: number): Sent => ({ from: 'b', type: PacketType.Ack, acks: true, at })

const big = (i: number) => `${i}:${'x'.repeat(1000)}` // one datagram each: never bundled

describe('delayed acknowledgements', () => {
  it('holds a standalone acknowledgement, then sends it alone after maxAckDelayMs', () => {
    const pair = established({ maxAckDelayMs: 5 })
    pair.send('a', 'x')
    pair.runTo(105) // arrived at 101
    expect(pair.sentBy('b', 100)).toEqual([])
    pair.runTo(106)
    expect(pair.sentBy('b', 100)).toEqual([ack(106)])
    pair.runTo(110)
    expect(pair.engine('a').unacknowledged()).toBe(0)
    expect(pair.engine('a').stats.retransmissions).toBe(0)
  })

  it('with maxAckDelayMs 0 acknowledges at the end of the batch, as before', () => {
    const pair = established({ maxAckDelayMs: 0 })
    pair.send('a', 'x')
    pair.runTo(110)
    expect(pair.sentBy('b', 100)).toEqual([ack(101)])
  })

  it('lets data sent within the delay carry the acknowledgement: no standalone ack', () => {
    const pair = established({ maxAckDelayMs: 5 })
    pair.send('a', 'request')
    pair.runTo(104)
    pair.send('b', 'response')
    pair.runTo(105)
    expect(pair.engine('a').unacknowledged()).toBe(0)
    pair.runTo(120)
    expect(pair.sentBy('b', 100)).toEqual([
      { from: 'b', type: PacketType.Data, acks: true, at: 104 },
    ])
  })

  it('acknowledges at once after ACK_EVERY (8) data datagrams', () => {
    const pair = established({ maxAckDelayMs: 5 })
    for (let i = 0; i < 8; i++) pair.send('a', big(i))
    expect(pair.inFlight.get('b')).toHaveLength(8)
    pair.runTo(120)
    expect(pair.sentBy('b', 100)).toEqual([ack(101)])
  })

  it('acknowledges at once what arrives after a gap (a loss), so the sender learns of it fast', () => {
    const pair = established({ maxAckDelayMs: 5 })
    for (let i = 0; i < 3; i++) pair.send('a', big(i))
    pair.inFlight.get('b')!.shift() // the first is lost
    pair.tick()
    expect(pair.sentBy('b', 100)).toEqual([ack(101)])
  })

  it('acknowledges at once what arrives out of order', () => {
    const pair = established({ maxAckDelayMs: 5 })
    for (let i = 0; i < 2; i++) pair.send('a', big(i))
    pair.inFlight.get('b')!.reverse()
    pair.tick()
    expect(pair.sentBy('b', 100)).toEqual([ack(101)])
  })

  it('acknowledges a retransmission at once: a lost tail is repaired after one probe timeout', () => {
    const pair = established({ maxAckDelayMs: 5 })
    pair.send('a', 'tail')
    pair.inFlight.get('b')!.length = 0 // lost
    while (pair.engine('a').stats.retransmissions === 0 && pair.now < 1000) pair.tick()
    expect(pair.engine('a').stats.retransmissions).toBe(1)
    const resentAt = pair.now
    pair.tick()
    expect(pair.sentBy('b', 100)).toEqual([ack(resentAt + 1)])
  })

  it('acknowledges the first data of a new link at once (it follows a handshake)', () => {
    const pair = new Pair({ maxAckDelayMs: 5 })
    pair.send('a', 'first') // Hello at 0, HelloReply at 1, data at 2
    pair.runTo(20)
    expect(pair.engine('a').unacknowledged()).toBe(0)
    expect(pair.sentBy('b', 0).map((s) => [s.type, s.at])).toEqual([
      [PacketType.HelloReply, 1],
      [PacketType.Ack, 3],
    ])
  })

  it('waits for the peer’s ack delay in its probe timeout: one-way traffic is never resent spuriously', () => {
    // A round trip of 2 ms and minRtoMs 1: without the delay, the probe timeout (about 6 ms) would
    // fire before the held acknowledgement (7 ms) arrives.
    const pair = established({ maxAckDelayMs: 5, retransmit: { minRtoMs: 1, jitter: 0 } })
    for (let round = 0; round < 20; round++) {
      pair.runTo(200 + round * 50)
      pair.send('a', `note ${round}`) // one way: its ack is always held
    }
    pair.runTo(1300)
    expect(pair.engine('a').unacknowledged()).toBe(0)
    expect(pair.engine('b').stats.acksSent).toBeGreaterThanOrEqual(20)
    expect(pair.engine('a').stats.retransmissions).toBe(0)
  })

  it('refuses a negative, oversized or NaN maxAckDelayMs; defaults to 5', () => {
    expect(() => resolveOptions({ id: 'x', maxAckDelayMs: -1 })).toThrow(/maxAckDelayMs/)
    expect(() => resolveOptions({ id: 'x', maxAckDelayMs: 1001 })).toThrow(/maxAckDelayMs/)
    expect(() => resolveOptions({ id: 'x', maxAckDelayMs: Number.NaN })).toThrow(/maxAckDelayMs/)
    expect(resolveOptions({ id: 'x' }).maxAckDelayMs).toBe(5)
  })
})
