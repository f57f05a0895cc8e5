import { createRandom, isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import {
  isZeroTimestamp,
  NTP_UNIX_OFFSET_S,
  ntpDifferenceMs,
  ntpTimestampEquals,
  ntpToUnixMs,
  secondsToShort,
  shortToSeconds,
  unixMsToNtp,
} from '../../src/ntp/timestamp.js'

/** 2036-02-07T06:28:16Z, when the 32-bit seconds field wraps to 0 (era 1 begins). */
const ROLLOVER_MS = Date.UTC(2036, 1, 7, 6, 28, 16)

describe('NTP timestamps', () => {
  it('the Unix epoch is 2208988800 s after the NTP epoch', () => {
    expect(unixMsToNtp(0)).toEqual({ seconds: NTP_UNIX_OFFSET_S, fraction: 0 })
    expect(ntpToUnixMs({ seconds: 2_208_988_800, fraction: 0 }, Date.now())).toBe(0)
  })

  it('known dates, with the fraction in units of 2^-32 s', () => {
    // 2025-01-01T00:00:00.500Z: 0xeb1f0400 s, half a second.
    expect(unixMsToNtp(Date.UTC(2025, 0, 1) + 500)).toEqual({
      seconds: 0xeb1f_0400,
      fraction: 0x8000_0000,
    })
    expect(unixMsToNtp(250).fraction).toBe(0x4000_0000)
    // 1 ms is 2^32 / 1000 = 4294967.296 units: rounded to the nearest.
    expect(unixMsToNtp(1).fraction).toBe(4_294_967)
    expect(ntpToUnixMs({ seconds: 0xeb1f_0400, fraction: 0xc000_0000 }, Date.UTC(2025, 0, 1))).toBe(
      Date.UTC(2025, 0, 1) + 750,
    )
  })

  it('a remainder that rounds up to a whole second carries into the seconds', () => {
    expect(unixMsToNtp(999.99999999999)).toEqual({ seconds: NTP_UNIX_OFFSET_S + 1, fraction: 0 })
  })

  it('wraps at 2036-02-07T06:28:16Z, and the pivot picks the era', () => {
    expect(unixMsToNtp(ROLLOVER_MS)).toEqual({ seconds: 0, fraction: 0 })
    expect(unixMsToNtp(ROLLOVER_MS - 500)).toEqual({
      seconds: 0xffff_ffff,
      fraction: 0x8000_0000,
    })
    // seconds 0 is 1900-01-01 in era 0 and the rollover in era 1: the nearer to the pivot wins.
    expect(ntpToUnixMs({ seconds: 0, fraction: 0 }, ROLLOVER_MS - 86_400_000)).toBe(ROLLOVER_MS)
    expect(ntpToUnixMs({ seconds: 0, fraction: 0 }, Date.UTC(1910, 0, 1))).toBe(
      -NTP_UNIX_OFFSET_S * 1000,
    )
    // 2040 read with a pivot of today (2025-ish) and with a pivot in 2100.
    const in2040 = Date.UTC(2040, 5, 1, 12, 0, 0, 125)
    expect(unixMsToNtp(in2040).seconds).toBeLessThan(NTP_UNIX_OFFSET_S)
    expect(ntpToUnixMs(unixMsToNtp(in2040), Date.UTC(2025, 0, 1))).toBe(in2040)
    expect(ntpToUnixMs(unixMsToNtp(in2040), Date.UTC(2100, 0, 1))).toBe(in2040)
  })

  it('round-trips any time within 68 years of the pivot to a fraction of a microsecond', () => {
    const random = createRandom('ntp-timestamps')
    const yearMs = 365.25 * 86_400_000
    for (let i = 0; i < 5000; i++) {
      const t = Date.UTC(1900, 0, 1) + random.next() * 300 * yearMs
      const pivot = t + (random.next() * 2 - 1) * 67 * yearMs
      const back = ntpToUnixMs(unixMsToNtp(t), pivot)
      expect(Math.abs(back - t), `t=${t} pivot=${pivot}`).toBeLessThan(0.001)
    }
  })

  it('differences are taken modulo 2^32 s, right across the rollover', () => {
    const before = unixMsToNtp(ROLLOVER_MS - 1500)
    const after = unixMsToNtp(ROLLOVER_MS + 500)
    expect(after.seconds).toBe(0)
    expect(ntpDifferenceMs(after, before)).toBeCloseTo(2000, 6)
    expect(ntpDifferenceMs(before, after)).toBeCloseTo(-2000, 6)
  })

  it('compares raw bits and knows zero', () => {
    expect(ntpTimestampEquals({ seconds: 1, fraction: 2 }, { seconds: 1, fraction: 2 })).toBe(true)
    expect(ntpTimestampEquals({ seconds: 1, fraction: 2 }, { seconds: 1, fraction: 3 })).toBe(false)
    expect(isZeroTimestamp({ seconds: 0, fraction: 0 })).toBe(true)
    expect(isZeroTimestamp({ seconds: 0, fraction: 1 })).toBe(false)
  })

  it('16.16 shorts: seconds and back, rounded and clamped', () => {
    expect(shortToSeconds(0x0001_0000)).toBe(1)
    expect(shortToSeconds(0x0000_8000)).toBe(0.5)
    expect(secondsToShort(0.25)).toBe(0x0000_4000)
    expect(secondsToShort(1 / 65_536 / 3)).toBe(0)
    expect(secondsToShort(-1)).toBe(0)
    expect(secondsToShort(1e9)).toBe(0xffff_ffff)
    expect(shortToSeconds(secondsToShort(12.345))).toBeCloseTo(12.345, 4)
  })

  it('refuses times that are not finite', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => unixMsToNtp(bad)).toThrow(/finite/)
      expect(() => ntpToUnixMs({ seconds: 0, fraction: 0 }, bad)).toThrow(/finite/)
    }
    try {
      secondsToShort(Number.NaN)
      expect.unreachable()
    } catch (error) {
      expect(isSdError(error, 'ERR_INVALID_ARGUMENT')).toBe(true)
    }
  })
})
