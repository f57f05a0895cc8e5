import assert from 'node:assert/strict'
import { ClockSkewError, HybridLogicalClock } from '@sd/clocks'

// Time is injected: pass Date.now in production, a fake clock in tests.
let physical = 1_000
const hlc = new HybridLogicalClock({ now: () => physical, maxSkewMs: 500 })

assert.deepEqual(hlc.now(), { wall: 1000, counter: 0 })
assert.deepEqual(hlc.now(), { wall: 1000, counter: 1 }) // same millisecond
// A message from a peer whose clock is 200 ms ahead: we follow it, keeping causality.
assert.deepEqual(hlc.receive({ wall: 1200, counter: 3 }), { wall: 1200, counter: 4 })
physical = 1300
assert.deepEqual(hlc.now(), { wall: 1300, counter: 0 })
// A peer 10 s ahead is refused, and the clock is left as it was.
assert.throws(() => hlc.receive({ wall: 11_300, counter: 0 }), ClockSkewError)
