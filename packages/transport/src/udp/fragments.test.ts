import { describe, expect, it } from 'vitest'
import {
  FRAGMENT_OVERHEAD_BYTES,
  MIN_FRAGMENT_BYTES,
  Reassembler,
  splitPayload,
} from './fragments.js'

describe('fragments', () => {
  it('splits without copying and reassembles in any order', () => {
    const payload = Uint8Array.from({ length: 700 }, (_, i) => i & 0xff)
    const parts = splitPayload(payload, 300)
    expect(parts.map((p) => p.length)).toEqual([300, 300, 100])
    expect(parts[1]!.buffer).toBe(payload.buffer)
    const r = new Reassembler({
      maxMessageBytes: 1000,
      maxPartial: 2,
      timeoutMs: 1000,
      onDiscard: () => {},
    })
    expect(r.add({ msgId: 1, index: 2, count: 3 }, parts[2]!, 0)).toBeUndefined()
    expect(r.add({ msgId: 1, index: 0, count: 3 }, parts[0]!, 0)).toBeUndefined()
    expect(r.add({ msgId: 1, index: 0, count: 3 }, parts[0]!, 0)).toBe('duplicate')
    expect(r.add({ msgId: 1, index: 1, count: 3 }, parts[1]!, 0)).toEqual(payload)
    expect(r.pending).toBe(0)
  })

  it('keeps memory bounded: evicts the oldest partial, refuses oversized or inconsistent ones, expires old ones', () => {
    const discarded: string[] = []
    const r = new Reassembler({
      maxMessageBytes: 600,
      maxPartial: 2,
      timeoutMs: 100,
      onDiscard: (reason) => discarded.push(reason),
    })
    const part = new Uint8Array(300)
    r.add({ msgId: 1, index: 0, count: 2 }, part, 0)
    r.add({ msgId: 2, index: 0, count: 2 }, part, 10)
    r.add({ msgId: 3, index: 0, count: 2 }, part, 20) // full: message 1 is evicted
    expect(discarded).toEqual(['reassembly-overflow'])
    expect(r.add({ msgId: 2, index: 1, count: 2 }, new Uint8Array(301), 30)).toBe('oversized') // 601 > 600
    expect(r.add({ msgId: 3, index: 1, count: 5 }, part, 30)).toBe('malformed') // count changed
    r.add({ msgId: 4, index: 0, count: 2 }, part, 40)
    r.expire(140)
    expect(discarded).toEqual(['reassembly-overflow', 'reassembly-timeout'])
    expect(r.pending).toBe(0)
  })

  it('refuses empty fragments and tiny ones but the last, and charges each fragment its overhead', () => {
    const r = new Reassembler({
      maxMessageBytes: 1 << 20,
      maxPartial: 1,
      timeoutMs: Number.POSITIVE_INFINITY,
      onDiscard: () => {},
    })
    expect(r.add({ msgId: 1, index: 0, count: 65535 }, new Uint8Array(0), 0)).toBe('malformed')
    expect(
      r.add({ msgId: 1, index: 3, count: 65535 }, new Uint8Array(MIN_FRAGMENT_BYTES - 1), 0),
    ).toBe('malformed')
    // The last fragment may be short.
    expect(r.add({ msgId: 1, index: 65534, count: 65535 }, new Uint8Array(1), 0)).toBeUndefined()
    expect(r.charged).toBe(1 + FRAGMENT_OVERHEAD_BYTES)
    // A flood of minimum-size fragments is cut off at 2 x maxMessageBytes charged.
    let refused: unknown
    for (let i = 0; i < 65534 && refused === undefined; i++) {
      refused = r.add({ msgId: 1, index: i, count: 65535 }, new Uint8Array(MIN_FRAGMENT_BYTES), 0)
    }
    expect(refused).toBe('oversized')
    expect(r.pending).toBe(0)
    expect(r.charged).toBe(0)
  })

  it('copies what it holds, so a fragment does not keep its whole datagram alive', () => {
    const r = new Reassembler({
      maxMessageBytes: 4096,
      maxPartial: 1,
      timeoutMs: 1,
      onDiscard: () => {},
    })
    const datagram = new Uint8Array(2000).fill(7)
    const whole = r.add({ msgId: 1, index: 1, count: 2 }, datagram.subarray(1000, 1300), 0)
    expect(whole).toBeUndefined()
    datagram.fill(0) // the socket's buffer is reused or mutated: the held copy must not change
    const done = r.add({ msgId: 1, index: 0, count: 2 }, new Uint8Array(300).fill(1), 0)
    expect(done).toBeInstanceOf(Uint8Array)
    expect((done as Uint8Array).subarray(300).every((b) => b === 7)).toBe(true)
  })
})

describe('held fragments are copies', () => {
  it('a fragment received as a view of its datagram (a Buffer) is copied, not kept as a view', () => {
    const r = new Reassembler({
      maxMessageBytes: 4000,
      maxPartial: 1,
      timeoutMs: 1000,
      onDiscard: () => {},
    })
    // As on a socket: the payload is a Buffer view into a larger datagram.
    const datagram = Buffer.alloc(1200, 7)
    const first = datagram.subarray(100, 700)
    expect(r.add({ msgId: 9, index: 0, count: 2 }, first, 0)).toBeUndefined()
    datagram.fill(0) // the datagram's memory is reused or freed: the held fragment must not change
    const whole = r.add({ msgId: 9, index: 1, count: 2 }, new Uint8Array(10).fill(1), 0)
    expect(whole).toBeInstanceOf(Uint8Array)
    expect([...(whole as Uint8Array).subarray(0, 600)].every((b) => b === 7)).toBe(true)
  })
})
