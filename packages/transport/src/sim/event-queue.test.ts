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
