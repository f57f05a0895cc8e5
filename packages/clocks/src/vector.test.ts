import { describe, expect, it } from 'vitest'
import { causalPredecessors, compareVectors, concurrentAt, happenedBeforeAt } from './compare.js'
import { cannotShareFrontier, findCutViolation, isConsistentDenseCut } from './cuts.js'
import { ClockSizeMismatchError, InvalidClockArgumentError } from './errors.js'
import { compareDense, DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

describe('the worked example of seed 000 (figure 4)', () => {
  // Processes p1, p2, p3 are indices 0, 1, 2.
  const a = DenseVectorClock.from([2, 4, 0], 1)
  const b = DenseVectorClock.from([2, 3, 3], 2)

  it('a and b are concurrent although C(a) < C(b) held for their Lamport clocks', () => {
    expect(a.compare(b)).toBe('concurrent')
    expect(concurrentAt(a, 1, b, 2)).toBe(true)
  })

  it('#(b) = (2 + 3 + 3) - 1 = 7', () => {
    expect(b.predecessors()).toBe(7)
    expect(causalPredecessors(b)).toBe(7)
  })

  it('c -> d with V_c[2] = V_d[2] = 3: the last event of p2 that precedes d', () => {
    const c = DenseVectorClock.from([0, 3, 0], 1)
    const d = DenseVectorClock.from([0, 3, 2], 2)
    expect(happenedBeforeAt(c, 1, d)).toBe(true)
    expect(c.happenedBefore(d)).toBe(true)
  })
})

describe('DenseVectorClock', () => {
  it('ticks, merges and receives by the rules', () => {
    const p0 = new DenseVectorClock(3, 0)
    const p1 = new DenseVectorClock(3, 1)
    p0.tick()
    const m = p0.tick().snapshot() // send: [2, 0, 0]
    p1.tick(3)
    p1.receive(m) // max then tick: [2, 4, 0]
    expect(p1.toArray()).toEqual([2, 4, 0])
    expect(m.happenedBefore(p1)).toBe(true)
    expect(p1.compare(m)).toBe('after')
    expect(p1.local).toBe(4)
    expect(p1.snapshot().equals(p1)).toBe(true)
    expect([...p1.keys()]).toEqual([0, 1])
    expect(String(p1)).toBe('[2, 4, 0]')
  })

  it('a snapshot does not move with the clock', () => {
    const c = new DenseVectorClock(2, 0)
    const s = c.tick().snapshot()
    c.tick()
    expect(s.toArray()).toEqual([1, 0])
  })

  it('refuses mismatched sizes, bad indices and bad entries', () => {
    const c = new DenseVectorClock(3, 0)
    expect(() => c.merge([1, 2])).toThrow(ClockSizeMismatchError)
    expect(() => compareDense([1], [1, 2])).toThrow(/dense clocks need a fixed membership/)
    expect(() => new DenseVectorClock(3, 3)).toThrow(InvalidClockArgumentError)
    expect(() => new DenseVectorClock(0, 0)).toThrow(InvalidClockArgumentError)
    expect(() => DenseVectorClock.from([1, -1])).toThrow(InvalidClockArgumentError)
    expect(() => c.receive([1, Number.NaN, 0])).toThrow(InvalidClockArgumentError)
    expect(() => c.tick(0)).toThrow(InvalidClockArgumentError)
  })
})

describe('SparseVectorClock', () => {
  it('grows with membership and reads absent entries as 0', () => {
    const a = new SparseVectorClock('A').tick()
    const b = new SparseVectorClock('B').tick().tick()
    b.receive(a)
    expect(b.toObject()).toEqual({ A: 1, B: 3 })
    expect(a.compare(b)).toBe('before')
    expect(b.compare(a)).toBe('after')
    const c = new SparseVectorClock('C').tick()
    expect(c.compare(b)).toBe('concurrent')
    expect(b.compare(c)).toBe('concurrent')
    expect(c.get('nobody')).toBe(0)
    expect(b.predecessors()).toBe(3)
  })

  it('keeps number and string ids apart and stores no zeros', () => {
    const s = new SparseVectorClock(1, [
      [1, 2],
      ['1', 3],
      ['z', 0],
    ])
    expect(s.get(1)).toBe(2)
    expect(s.get('1')).toBe(3)
    expect(s.size).toBe(2)
  })

  it('compares like the generic algorithm, including keys on one side only', () => {
    const x = SparseVectorClock.fromObject('x', { x: 1, y: 2 })
    const y = SparseVectorClock.fromObject('y', { x: 1, y: 2, z: 1 })
    expect(x.compare(y)).toBe('before')
    expect(compareVectors(x, y)).toBe('before')
    const z = SparseVectorClock.fromObject('z', { x: 2 })
    expect(z.compare(y)).toBe('concurrent')
    expect(compareVectors(z, y)).toBe('concurrent')
    expect(x.forget('y').toObject()).toEqual({ x: 1 })
  })
})

describe('cuts', () => {
  it("seed 000's figure-2 shape: a receive in the cut without its send is inconsistent", () => {
    // p0 sends at its 2nd event, p1 receives it as its 1st event.
    const p0send = DenseVectorClock.from([2, 0], 0)
    const p1recv = DenseVectorClock.from([2, 1], 1)
    const p0first = DenseVectorClock.from([1, 0], 0)
    expect(isConsistentDenseCut([p0send, p1recv])).toBe(true)
    expect(isConsistentDenseCut([p0first, p1recv])).toBe(false)
    expect(isConsistentDenseCut([undefined, p1recv])).toBe(false)
    expect(isConsistentDenseCut([p0first, undefined])).toBe(true)
    expect(cannotShareFrontier({ process: 0, clock: p0first }, { process: 1, clock: p1recv })).toBe(
      true,
    )
    expect(
      findCutViolation([
        { process: 0, clock: p0first },
        { process: 1, clock: p1recv },
      ]),
    ).toEqual({ kind: 'pair', a: 0, b: 1 })
    expect(findCutViolation([{ process: 1, clock: p1recv }])).toEqual({
      kind: 'missing',
      process: 0,
      seenBy: 1,
    })
  })

  it('refuses a frontier with two events of one process', () => {
    const e = { process: 0, clock: DenseVectorClock.from([1, 0], 0) }
    expect(() => findCutViolation([e, e])).toThrow(/twice/)
    expect(() => cannotShareFrontier(e, e)).toThrow(InvalidClockArgumentError)
  })
})
