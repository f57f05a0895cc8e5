import assert from 'node:assert/strict'
import { DenseVectorClock, isConsistentDenseCut, SparseVectorClock } from '@sd/clocks'

// Dense: a fixed group of 3 processes, numbered 0..2.
const p0 = new DenseVectorClock(3, 0)
const p1 = new DenseVectorClock(3, 1)
const send = p0.tick().snapshot() // [1, 0, 0]
p1.tick() // [0, 1, 0]
const concurrentEvent = p1.snapshot()
const receive = p1.receive(send).snapshot() // [1, 2, 0]

assert.equal(send.compare(receive), 'before') // send -> receive
assert.equal(send.compare(concurrentEvent), 'concurrent')
assert.equal(receive.predecessors(), 2) // #(e) = sum - 1
// A cut holding the receive but not the send is not consistent.
assert.equal(isConsistentDenseCut([undefined, receive, undefined]), false)
assert.equal(isConsistentDenseCut([send, receive, undefined]), true)

// Sparse: members keyed by id, joining at any time.
const a = new SparseVectorClock('api').tick()
const b = new SparseVectorClock('db').tick().receive(a)
assert.deepEqual(b.toObject(), { db: 2, api: 1 })
assert.equal(a.happenedBefore(b), true)
