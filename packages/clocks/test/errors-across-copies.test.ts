import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBothFormats, type DualBuild } from '../../../test-support/dual-build.js'
import * as source from '../src/index.js'

type Entry = typeof source
const pkg = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))

describe('errors thrown by another copy of the package', () => {
  let copies: DualBuild<Entry>

  beforeAll(async () => {
    copies = await buildBothFormats<Entry>(pkg('src/index.ts'), pkg('tsconfig.build.json'))
  }, 300_000)
  afterAll(() => copies?.remove())

  it('fail instanceof but pass isClockError, by code', () => {
    const { cjs, esm } = copies
    let fromCjs: unknown
    try {
      new cjs.LamportClock({ pid: 1 }).tick(0)
    } catch (error) {
      fromCjs = error
    }
    const fromEsm = new esm.ClockSkewError(2_000, 1_000, 500)

    expect(fromCjs instanceof esm.InvalidClockArgumentError).toBe(false)
    expect(fromCjs instanceof source.ClockError).toBe(false)
    expect(fromEsm instanceof cjs.ClockError).toBe(false)

    for (const isClockError of [source.isClockError, cjs.isClockError, esm.isClockError]) {
      expect(isClockError(fromCjs)).toBe(true)
      expect(isClockError(fromCjs, 'ERR_CLOCK_ARGUMENT')).toBe(true)
      expect(isClockError(fromCjs, 'ERR_CLOCK_SKEW')).toBe(false)
      expect(isClockError(fromEsm, 'ERR_CLOCK_SKEW')).toBe(true)
    }
    if (source.isClockError(fromEsm, 'ERR_CLOCK_SKEW')) expect(fromEsm.maxSkewMs).toBe(500)
  })
})

describe('isClockError', () => {
  it('accepts every error class with its own code', () => {
    const errors: [source.ClockError, source.ClockErrorCode][] = [
      [new source.InvalidClockArgumentError('d must be > 0'), 'ERR_CLOCK_ARGUMENT'],
      [new source.ClockSizeMismatchError(3, 4, 'merge'), 'ERR_CLOCK_SIZE_MISMATCH'],
      [new source.ClockOverflowError('too big'), 'ERR_CLOCK_OVERFLOW'],
      [new source.ClockSkewError(2_000, 1_000, 500), 'ERR_CLOCK_SKEW'],
      [new source.ClockDecodeError('truncated', 3), 'ERR_CLOCK_DECODE'],
    ]
    for (const [error, code] of errors) {
      expect(error.code).toBe(code)
      expect(source.isClockError(error, code)).toBe(true)
      expect(source.isClockError(error, 'ERR_NOT_A_CODE')).toBe(false)
    }
  })

  it('refuses look-alikes: a plain error with a clock code, non-errors', () => {
    const lookAlike = Object.assign(new Error('not ours'), { code: 'ERR_CLOCK_SKEW' })
    expect(source.isClockError(lookAlike)).toBe(false)
    expect(source.isClockError(lookAlike, 'ERR_CLOCK_SKEW')).toBe(false)
    for (const value of [undefined, null, 'ERR_CLOCK_DECODE', 1, {}, { code: 'ERR_CLOCK_DECODE' }])
      expect(source.isClockError(value)).toBe(false)
  })
})
