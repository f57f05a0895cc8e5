import assert from 'node:assert/strict'
import { compareLamport, LamportClock } from '@sd/clocks'

const p1 = new LamportClock({ pid: 1 })
const p2 = new LamportClock({ pid: 2 })

p1.tick() // an internal event: C1 = 1
const stamp = p1.send() // a send carries C1 = 2
p2.tick() // C2 = 1
const received = p2.receive(stamp) // max(1, 2) + 1 = 3
assert.equal(received, 3)

// (T, pid) orders every event of the system totally; ties go to the smaller pid.
const events = [p2.timestamp, { time: 3, pid: 1 }, p1.timestamp]
events.sort(compareLamport)
assert.deepEqual(events, [
  { time: 2, pid: 1 },
  { time: 3, pid: 1 },
  { time: 3, pid: 2 },
])
