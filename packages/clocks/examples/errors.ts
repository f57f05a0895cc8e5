import assert from 'node:assert/strict'
import { isClockError, LamportClock } from '@sd/clocks'

const clock = new LamportClock({ pid: 1 })

// node:assert matches the code directly; so does vitest: toThrow(expect.objectContaining({ code })).
assert.throws(() => clock.tick(0), { code: 'ERR_CLOCK_ARGUMENT' })

try {
  clock.tick(-1)
} catch (error) {
  if (!isClockError(error, 'ERR_CLOCK_ARGUMENT')) throw error
  assert.match(error.message, /> 0/) // narrowed to InvalidClockArgumentError
}
