import assert from 'node:assert/strict'
import {
  ClockDecodeError,
  clockFromJSON,
  clockToJSON,
  DenseVectorClock,
  decodeClock,
  encodeClock,
} from '@sd/clocks'

const clock = DenseVectorClock.from([3, 0, 7, 1], 2)
const bytes = encodeClock(clock) // 1 header byte + self + size + 4 varints
assert.equal(bytes.length, 7)
assert.deepEqual(decodeClock(bytes, 'vector-dense').toArray(), [3, 0, 7, 1])

const text = clockToJSON({ wall: 1_700_000_000_000, counter: 2 })
assert.equal(text, '{"kind":"hlc","wall":1700000000000,"counter":2}')
assert.deepEqual(clockFromJSON(text, 'hlc'), { wall: 1_700_000_000_000, counter: 2 })

// Malformed input fails with a typed error that says what is wrong.
assert.throws(() => decodeClock(bytes.subarray(0, 5)), ClockDecodeError)
assert.throws(() => clockFromJSON('{"kind":"lamport","time":-1,"pid":1}'), /integer >= 0/)
