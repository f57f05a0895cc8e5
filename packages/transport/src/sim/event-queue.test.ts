import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EventQueue, type Scheduled } from './event-queue.js'

interface Item extends Scheduled {
  label: number
}

describe('EventQueue', () => {
  it('pops in (time, insertion) order and skips cancelled entries, like a sorted list', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), t: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('pop' as const) }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const queue = new EventQueue<Item>()
        const reference: Item[] = []
        let label = 0
        for (const o of ops) {
          if (o.kind === 'push') {
            const item = queue.push({ t: o.t, seq: 0, cancelled: false, label: label++ })
            reference.push(item)
            reference.sort((a, b) => a.t - b.t || a.seq - b.seq)
          } else if (o.kind === 'cancel') {
            const live = reference.filter((i) => !i.cancelled)
            if (live.length > 0) live[o.pick % live.length]!.cancelled = true
          } else {
            const expected = reference.find((i) => !i.cancelled)
            const got = queue.pop()
            expect(got?.label).toBe(expected?.label)
            if (expected) reference.splice(reference.indexOf(expected), 1)
            while (reference[0]?.cancelled) reference.shift()
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('EventQueue.reset', () => {
  it('takes back a saved list of live events (and its seq counter), then pops as before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 400 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 50 }),
        (times, later) => {
          const queue = new EventQueue<Item>()
          for (const [label, t] of times.entries())
            queue.push({ t, seq: 0, cancelled: false, label })
          const saved = queue.live()
          const seq = queue.seqCounter
          const other = new EventQueue<Item>()
          other.reset(saved.slice(), seq)
          for (const [i, t] of later.entries()) {
            queue.push({ t, seq: 0, cancelled: false, label: 1000 + i })
            other.push({ t, seq: 0, cancelled: false, label: 1000 + i })
          }
          const order = (q: EventQueue<Item>) => {
            const out: number[] = []
            for (let e = q.pop(); e !== undefined; e = q.pop()) out.push(e.label)
            return out
          }
          const expected = [
            ...saved,
            ...later.map((t, i) => ({ t, label: 1000 + i, seq: seq + i })),
          ]
            .sort((a, b) => a.t - b.t || a.seq - b.seq)
            .map((e) => e.label)
          expect(order(other)).toEqual(expected)
          expect(order(queue)).toEqual(expected)
        },
      ),
      { numRuns: 200 },
    )
  })
})
