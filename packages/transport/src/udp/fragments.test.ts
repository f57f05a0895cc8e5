import { describe, expect, it } from 'vitest'
import { Reassembler, splitPayload } from './fragments.js'

describe('fragments', () => {
  it('splits without copying and reassembles in any order', () => {
    const payload = Uint8Array.from({ length: 25 }, (_, i) => i)
    const parts = splitPayload(payload, 10)
    expect(parts.map((p) => p.length)).toEqual([10, 10, 5])
    const r = new Reassembler({
      maxMessageBytes: 100,
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
      maxMessageBytes: 15,
      maxPartial: 2,
      timeoutMs: 100,
      onDiscard: (reason) => discarded.push(reason),
    })
    const part = new Uint8Array(8)
    r.add({ msgId: 1, index: 0, count: 2 }, part, 0)
    r.add({ msgId: 2, index: 0, count: 2 }, part, 10)
    r.add({ msgId: 3, index: 0, count: 2 }, part, 20) // full: message 1 is evicted
    expect(discarded).toEqual(['reassembly-overflow'])
    expect(r.add({ msgId: 2, index: 1, count: 2 }, new Uint8Array(9), 30)).toBe('oversized') // 17 > 15
    expect(r.add({ msgId: 3, index: 1, count: 5 }, part, 30)).toBe('malformed') // count changed
    r.add({ msgId: 4, index: 0, count: 2 }, part, 40)
    r.expire(140)
    expect(discarded).toEqual(['reassembly-overflow', 'reassembly-timeout'])
    expect(r.pending).toBe(0)
  })
})
