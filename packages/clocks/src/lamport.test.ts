import { describe, expect, it } from 'vitest'
import { ClockOverflowError, InvalidClockArgumentError } from './errors.js'
import { compareLamport, LamportClock } from './lamport.js'

describe('LamportClock', () => {
  it('R1 ticks by d before each event, R2 takes the max then ticks', () => {
    const p = new LamportClock({ pid: 1 })
    expect(p.tick()).toBe(1)
    expect(p.tick(5)).toBe(6)
    expect(p.send()).toBe(7)
    const q = new LamportClock({ pid: 2, step: 2 })
    expect(q.receive(7)).toBe(9) // max(0, 7) + 2
    expect(q.receive(3)).toBe(11) // an old timestamp still ticks
    expect(q.timestamp).toEqual({ time: 11, pid: 2 })
  })

  it('refuses d <= 0, fractions, negative remote times and overflow', () => {
    const p = new LamportClock({ pid: 'a' })
    expect(() => p.tick(0)).toThrow(InvalidClockArgumentError)
    expect(() => p.tick(-1)).toThrow(/d must be an integer > 0/)
    expect(() => p.tick(0.5)).toThrow(InvalidClockArgumentError)
    expect(() => p.receive(-3)).toThrow(InvalidClockArgumentError)
    expect(() => p.receive(Number.NaN)).toThrow(InvalidClockArgumentError)
    expect(() => new LamportClock({ pid: 'a', step: 0 })).toThrow(InvalidClockArgumentError)
    const big = new LamportClock({ pid: 'a', start: Number.MAX_SAFE_INTEGER })
    expect(() => big.tick()).toThrow(ClockOverflowError)
    expect(big.time).toBe(Number.MAX_SAFE_INTEGER)
    try {
      p.tick(0)
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_CLOCK_ARGUMENT' })
    }
  })

  it('orders (T, pid) totally: by time, then by pid (numbers before strings)', () => {
    const stamps = [
      { time: 2, pid: 'b' },
      { time: 1, pid: 9 },
      { time: 2, pid: 1 },
      { time: 2, pid: 'a' },
      { time: 1, pid: 3 },
    ]
    expect(stamps.sort(compareLamport)).toEqual([
      { time: 1, pid: 3 },
      { time: 1, pid: 9 },
      { time: 2, pid: 1 },
      { time: 2, pid: 'a' },
      { time: 2, pid: 'b' },
    ])
    expect(compareLamport({ time: 4, pid: 2 }, { time: 4, pid: 2 })).toBe(0)
  })

  it('reproduces the seed-004 example: requests stamped 41 and 34, the 34 goes first', () => {
    const p1 = { time: 41, pid: 1 }
    const p2 = { time: 34, pid: 2 }
    expect(compareLamport(p2, p1)).toBeLessThan(0)
  })
})
