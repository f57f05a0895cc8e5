import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clockFromJSON, clockToJSON, decodeClock, encodeClock } from './codec.js'
import { ClockDecodeError } from './errors.js'
import { compareHlc, HLC_MAX_COUNTER, HLC_MAX_WALL } from './hlc.js'
import type { NodeId } from './ids.js'
import { LamportClock } from './lamport.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

const count = fc.oneof(fc.nat(1000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }))
// -0 is the same id as 0 (Map keys, compareNodeIds), and travels as 0.
const id: fc.Arbitrary<NodeId> = fc
  .oneof(
    fc.nat(),
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -1000, max: -1 }),
  )
  .map((x) => (Object.is(x, -0) ? 0 : x))
const dense = fc
  .array(count, { minLength: 1, maxLength: 40 })
  .chain((values) =>
    fc.nat(values.length - 1).map((self) => new DenseVectorClock(values.length, self, values)),
  )
const sparse = fc
  .tuple(id, fc.uniqueArray(fc.tuple(id, count), { selector: ([k]) => k, maxLength: 20 }))
  .map(([self, entries]) => new SparseVectorClock(self, entries))
const lamport = fc.record({ time: count, pid: id })
const hlc = fc.record({
  wall: fc.integer({ min: 0, max: HLC_MAX_WALL }),
  counter: fc.integer({ min: 0, max: HLC_MAX_COUNTER }),
})

describe('codecs round-trip', () => {
  it('dense vector clocks, binary and JSON', () => {
    fc.assert(
      fc.property(dense, (c) => {
        const b = decodeClock(encodeClock(c), 'vector-dense')
        expect(b.toArray()).toEqual(c.toArray())
        expect(b.self).toBe(c.self)
        const j = clockFromJSON(clockToJSON(c), 'vector-dense')
        expect(j.toArray()).toEqual(c.toArray())
        expect(j.self).toBe(c.self)
      }),
      { numRuns: 300 },
    )
  })

  it('sparse vector clocks, keeping number ids apart from string ids', () => {
    fc.assert(
      fc.property(sparse, (c) => {
        for (const back of [
          decodeClock(encodeClock(c), 'vector-sparse'),
          clockFromJSON(clockToJSON(c), 'vector-sparse'),
        ]) {
          expect(Object.is(back.self, c.self) || back.self === c.self).toBe(true)
          expect(back.equals(c)).toBe(true)
          expect([...back.entries()]).toEqual([...c.entries()])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('Lamport timestamps and clocks', () => {
    fc.assert(
      fc.property(lamport, (ts) => {
        expect(decodeClock(encodeClock(ts), 'lamport')).toEqual(ts)
        expect(clockFromJSON(clockToJSON(ts), 'lamport')).toEqual(ts)
      }),
      { numRuns: 300 },
    )
    const clock = new LamportClock({ pid: 'p', start: 41 })
    expect(decodeClock(encodeClock(clock))).toEqual({
      kind: 'lamport',
      value: { time: 41, pid: 'p' },
    })
  })

  it('HLC timestamps in 11 bytes whose byte order is the timestamp order', () => {
    fc.assert(
      fc.property(hlc, hlc, (a, b) => {
        const ea = encodeClock(a)
        expect(ea.length).toBe(11)
        expect(decodeClock(ea, 'hlc')).toEqual(a)
        expect(clockFromJSON(clockToJSON(a), 'hlc')).toEqual(a)
        const bytes = Buffer.compare(Buffer.from(ea), Buffer.from(encodeClock(b)))
        expect(Math.sign(bytes)).toBe(Math.sign(compareHlc(a, b)))
      }),
      { numRuns: 300 },
    )
  })

  it('is compact: a 16-entry dense clock of small counters takes 19 bytes', () => {
    const c = DenseVectorClock.from(
      Array.from({ length: 16 }, (_, i) => i * 7),
      3,
    )
    expect(encodeClock(c).length).toBe(19)
  })
})

describe('codecs refuse malformed input with ClockDecodeError', () => {
  const good = encodeClock(DenseVectorClock.from([1, 2, 300], 1))

  it.each([
    ['empty input', new Uint8Array()],
    ['a truncated body', good.subarray(0, good.length - 1)],
    ['trailing bytes', new Uint8Array([...good, 0])],
    ['an unknown version', new Uint8Array([0x22, 0, 1, 0])],
    ['an unknown kind', new Uint8Array([0x1f])],
    ['a self index out of range', new Uint8Array([0x12, 5, 2, 0, 0])],
    ['a huge count', new Uint8Array([0x12, 0, 0xff, 0xff, 0x7f])],
    ['an over-long varint', new Uint8Array([0x11, 0x81, 0x00, 0, 1])],
    ['a bad id tag', new Uint8Array([0x11, 1, 9])],
    ['invalid UTF-8 in an id', new Uint8Array([0x11, 1, 1, 1, 0xff])],
    ['a zero sparse entry', new Uint8Array([0x13, 0, 1, 1, 0, 1, 0])],
  ])('binary: %s', (_, bytes) => {
    expect(() => decodeClock(bytes)).toThrow(ClockDecodeError)
  })

  it('names the kind mismatch and the offset', () => {
    expect(() => decodeClock(good, 'hlc')).toThrow(
      /expected a hlc clock but the bytes hold a vector-dense/,
    )
    try {
      decodeClock(good.subarray(0, 3))
    } catch (e) {
      // offset 2: the size that the remaining bytes cannot hold
      expect(e).toMatchObject({ code: 'ERR_CLOCK_DECODE', offset: 2 })
    }
  })

  it('never throws anything but ClockDecodeError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        try {
          decodeClock(bytes)
        } catch (e) {
          expect(e).toBeInstanceOf(ClockDecodeError)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it.each([
    ['not JSON', '{'],
    ['not an object', '[1]'],
    ['an unknown kind', '{"kind":"matrix"}'],
    ['a missing field', '{"kind":"lamport","time":1}'],
    ['a negative time', '{"kind":"lamport","time":-1,"pid":1}'],
    ['an empty dense clock', '{"kind":"vector-dense","self":0,"values":[]}'],
    ['a fractional entry', '{"kind":"vector-dense","self":0,"values":[1.5]}'],
    ['a self out of range', '{"kind":"vector-dense","self":4,"values":[1]}'],
    ['a bad pair', '{"kind":"vector-sparse","self":"a","entries":[["a"]]}'],
    ['a duplicate id', '{"kind":"vector-sparse","self":"a","entries":[["a",1],["a",2]]}'],
    ['a counter too large', '{"kind":"hlc","wall":1,"counter":4294967296}'],
  ])('JSON: %s', (_, text) => {
    expect(() => clockFromJSON(text)).toThrow(ClockDecodeError)
  })
})
