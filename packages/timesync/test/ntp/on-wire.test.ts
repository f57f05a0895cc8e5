import { describe, expect, it } from 'vitest'
import { FREQUENCY_TOLERANCE, onWire } from '../../src/ntp/on-wire.js'

describe('the on-wire calculation', () => {
  it('symmetric paths: the offset is exact, the error bound is half the round trip', () => {
    // The server is 100 ms ahead; 10 ms each way; it holds the request 5 ms.
    const r = onWire({ t1Ms: 1000, t2Ms: 1110, t3Ms: 1115, t4Ms: 1025 })
    expect(r.offsetMs).toBe(100)
    expect(r.delayMs).toBe(20)
    expect(r.errorBoundMs).toBeCloseTo(10 + FREQUENCY_TOLERANCE * 25, 12)
    expect(r.rootDistanceMs).toBe(r.errorBoundMs)
  })

  it('asymmetric paths: off by half the asymmetry, still inside the bound', () => {
    // The server is 100 ms ahead; 10 ms out, 30 ms back.
    const r = onWire({ t1Ms: 1000, t2Ms: 1110, t3Ms: 1115, t4Ms: 1045 })
    expect(r.offsetMs).toBe(90)
    expect(r.delayMs).toBe(40)
    expect(Math.abs(r.offsetMs - 100)).toBeLessThanOrEqual(r.errorBoundMs)
  })

  it('a server behind gives a negative offset', () => {
    const r = onWire({ t1Ms: 5000, t2Ms: 4751, t3Ms: 4752, t4Ms: 5003 })
    expect(r.offsetMs).toBe(-250)
    expect(r.delayMs).toBe(2)
  })

  it('a negative round trip is clamped to the precision (and to 0)', () => {
    const r = onWire({ t1Ms: 0, t2Ms: 10, t3Ms: 20, t4Ms: 5 }, { precisionMs: 0.002 })
    expect(r.delayMs).toBe(0.002)
    expect(onWire({ t1Ms: 0, t2Ms: 10, t3Ms: 20, t4Ms: 5 }).delayMs).toBe(0)
  })

  it('root distance, and with it the error bound, adds the server root delay / 2 and root dispersion', () => {
    const r = onWire(
      { t1Ms: 0, t2Ms: 5, t3Ms: 5, t4Ms: 10 },
      { precisionMs: 0.001, rootDelayMs: 30, rootDispersionMs: 4 },
    )
    expect(r.serverErrorBoundMs).toBeCloseTo(5 + 0.001 + FREQUENCY_TOLERANCE * 10, 12)
    expect(r.rootDistanceMs).toBeCloseTo(r.serverErrorBoundMs + 15 + 4, 12)
    // The error bound is the root distance: the server's distance to its reference counts.
    expect(r.errorBoundMs).toBe(r.rootDistanceMs)
  })

  it('refuses non-finite timestamps and negative extras', () => {
    expect(() => onWire({ t1Ms: Number.NaN, t2Ms: 0, t3Ms: 0, t4Ms: 0 })).toThrow(/t1Ms/)
    expect(() => onWire({ t1Ms: 0, t2Ms: 0, t3Ms: 0, t4Ms: 0 }, { rootDelayMs: -1 })).toThrow(
      /rootDelayMs/,
    )
  })
})
