import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { PERMITS_BURST, WRITERS_FIRST_BURST } from '../src/centralized/options.js'
import { InvalidArgumentError } from '../src/errors.js'
import { modeSim } from './support/mode-sim.js'

const SHARED = { mode: 'shared' } as const
const TAKE1 = { permits: { take: 1, of: 3 } }
const TAKE2 = { permits: { take: 2, of: 3 } }

describe('centralized: burst (one exclusive or permit grant covers several entries in a row)', () => {
  it('a holder that acquires again before giving back enters at once, up to burst entries; then the queue goes on', () => {
    const s = modeSim({ burst: 3 })
    for (let k = 0; k < 4; k++) s.acquire(2, 0) // four uses, queued on node 2
    s.acquire(3, 1, SHARED) // a reader waits behind the first entry
    for (const at of [30, 40, 50]) s.release(2, at)
    s.release(3, 100)
    s.release(2, 150)
    const r = s.run()
    expect(r.violations).toEqual([])
    const entries = r.of(2, 'acquired')
    const [reader] = r.of(3, 'acquired')
    // Entries 2 and 3 at the releases themselves (no message), entry 4 only after the reader.
    expect(entries.map((e) => e.t).slice(1, 3)).toEqual([30, 40])
    expect(entries[3]!.t).toBeGreaterThan(100)
    const first = entries[0]!.token
    expect(entries.slice(0, 3).map((e) => e.token)).toEqual([first, first + 1, first + 2])
    // The reader's token is above the three the grant reserved; the next grant's above the reader's.
    expect(reader!.token).toBeGreaterThan(first + 2)
    expect(entries[3]!.token).toBeGreaterThan(reader!.token)
    // The coordinator granted node 2 twice for its four entries.
    expect(r.of(1, 'granted').filter((g) => g.node === 2)).toHaveLength(2)
    expect(r.of(2, 'released').map((e) => e.token)).toEqual(entries.map((e) => e.token))
  })

  it('a kept grant goes back at the end of the turn when no acquire follows', () => {
    const s = modeSim({ burst: 3 })
    s.acquire(2, 0)
    s.acquire(3, 1)
    s.release(2, 30)
    s.release(3, 80)
    s.acquire(2, 100) // a later acquire asks the coordinator again
    const r = s.run()
    expect(r.violations).toEqual([])
    const [first, again] = r.of(2, 'acquired')
    const [other] = r.of(3, 'acquired')
    expect(other!.t).toBe(40) // the RELEASE left at 30: one message, then the GRANT
    expect(other!.token).toBe(first!.token + 3)
    expect(again!.token).toBeGreaterThan(other!.token)
    expect(r.of(1, 'granted')).toHaveLength(3)
  })

  it('shared entries are not kept: each asks the coordinator', () => {
    const s = modeSim({ burst: 3 })
    s.acquire(2, 0, SHARED)
    s.acquire(2, 0, SHARED)
    s.release(2, 30)
    s.release(2, 60)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.of(2, 'acquired')).toHaveLength(2)
    expect(r.of(1, 'granted')).toHaveLength(2)
    expect(r.of(2, 'acquired')[1]!.t).toBeGreaterThan(30)
  })

  it('an acquire of another kind on a kept grant gives it back and asks', () => {
    const s = modeSim({ burst: 3 })
    s.acquire(2, 0)
    s.acquire(2, 0, SHARED)
    s.release(2, 30)
    s.release(2, 60)
    const r = s.run()
    expect(r.violations).toEqual([])
    const [, shared] = r.of(2, 'acquired')
    expect(shared).toMatchObject({ mode: 'shared' })
    expect(shared!.t).toBeGreaterThan(30)
    expect(r.of(1, 'granted')).toHaveLength(2)
  })

  it('a grant a new coordinator learns of from a SYNC makes no more entries: the next one asks', () => {
    const s = modeSim({ burst: 3 })
    s.acquire(2, 0)
    s.acquire(2, 0)
    // Node 3 takes over in term 1 while node 2 holds the first entry of its grant.
    for (const node of [1, 2, 3, 4])
      s.net.request(node, { type: 'coordinator', id: 3, term: 1 }, 15)
    s.release(2, 40)
    s.release(2, 80)
    const r = s.run()
    expect(r.violations).toEqual([])
    const [first, second] = r.of(2, 'acquired')
    expect(first!.t).toBeLessThan(15)
    expect(second!.t).toBeGreaterThan(40) // not at the release: asked the new coordinator
    expect(r.of(3, 'granted').filter((g) => g.node === 2)).toHaveLength(1)
    expect(second!.token).toBeGreaterThan(first!.token + 2)
  })

  it('writers-first: a looping writer goes before the readers that wait (32 entries by default); fifo: one entry per turn', () => {
    // A writer that asks again as each entry ends, with a reader asking once meanwhile.
    const loop = (options: Parameters<typeof modeSim>[0]) => {
      const s = modeSim(options)
      for (let k = 0; k < 40; k++) s.acquire(2, 0)
      s.acquire(3, 1, SHARED)
      for (let k = 0; k < 40; k++) s.release(2, 30 + 10 * k)
      s.release(3, 1000)
      return s.run()
    }
    const writersFirst = loop({ readers: 'writers-first' })
    expect(writersFirst.violations).toEqual([])
    const writes = writersFirst.of(2, 'acquired')
    const [read] = writersFirst.of(3, 'acquired')
    // The first 32 writes ride on one grant, before the reader; the reader, then the rest.
    expect(writes.filter((w) => w.t < read!.t)).toHaveLength(WRITERS_FIRST_BURST)
    expect(writersFirst.of(1, 'granted').filter((g) => g.node === 2)).toHaveLength(2)
    // An explicit burst still wins, and 'fifo' keeps one entry per grant.
    for (const options of [
      { readers: 'writers-first', burst: 1 } as const,
      { readers: 'fifo' } as const,
    ]) {
      const r = loop(options)
      expect(r.violations).toEqual([])
      const [reader] = r.of(3, 'acquired')
      expect(r.of(2, 'acquired').filter((w) => w.t < reader!.t)).toHaveLength(1)
    }
  })

  it('a looping permit holder keeps its permits for burst entries while another waits, then yields', () => {
    const s = modeSim({ burst: 3 })
    for (let k = 0; k < 4; k++) s.acquire(2, 0, TAKE2) // four uses of 2 permits of 3, on node 2
    s.acquire(3, 1, TAKE2) // node 3 waits: 2 + 2 > 3
    for (const at of [30, 40, 50]) s.release(2, at)
    s.release(3, 100)
    s.release(2, 150)
    const r = s.run()
    expect(r.violations).toEqual([])
    const entries = r.of(2, 'acquired')
    const [other] = r.of(3, 'acquired')
    expect(entries.map((e) => e.permits)).toEqual(Array(4).fill(TAKE2.permits))
    // Entries 2 and 3 at the releases themselves (no message), entry 4 only after node 3's turn.
    expect(entries.map((e) => e.t).slice(1, 3)).toEqual([30, 40])
    expect(other!.t).toBeGreaterThan(50)
    expect(entries[3]!.t).toBeGreaterThan(100)
    const first = entries[0]!.token
    expect(entries.slice(0, 3).map((e) => e.token)).toEqual([first, first + 1, first + 2])
    expect(other!.token).toBeGreaterThan(first + 2)
    expect(entries[3]!.token).toBeGreaterThan(other!.token)
    expect(r.of(1, 'granted').filter((g) => g.node === 2)).toHaveLength(2)
  })

  it('permit holders that loop together each keep their own grant, within the permits', () => {
    // Nodes 2, 3 and 4 take 1 permit of 3 each, four times in a row; node 5 waits for one.
    const s = modeSim({ burst: 3 }, 5)
    for (const node of [2, 3, 4]) for (let k = 0; k < 4; k++) s.acquire(node, 0, TAKE1)
    s.acquire(5, 1, TAKE1)
    for (const node of [2, 3, 4]) for (const at of [30, 40, 50, 60]) s.release(node, at + node)
    s.release(5, 200)
    const r = s.run()
    expect(r.violations).toEqual([])
    const [waiter] = r.of(5, 'acquired')
    for (const node of [2, 3, 4]) {
      const entries = r.of(node, 'acquired')
      expect(entries).toHaveLength(4)
      // Three entries on the first grant, the next on a grant of its own.
      expect(entries.slice(1, 3).map((e) => e.t)).toEqual([30 + node, 40 + node])
      expect(entries[1]!.token).toBe(entries[0]!.token + 1)
    }
    // The waiter got the first permit given back (a burst used up), not before.
    expect(waiter!.t).toBeGreaterThan(50 + 2)
    expect(r.of(1, 'granted')).toHaveLength(7)
  })

  it('a permit acquire of another take on a kept grant gives it back and asks', () => {
    const s = modeSim({ burst: 3 })
    s.acquire(2, 0, TAKE1)
    s.acquire(2, 0, TAKE2)
    s.release(2, 30)
    s.release(2, 60)
    const r = s.run()
    expect(r.violations).toEqual([])
    const [, second] = r.of(2, 'acquired')
    expect(second).toMatchObject(TAKE2)
    expect(second!.t).toBeGreaterThan(30)
    expect(r.of(1, 'granted')).toHaveLength(2)
  })

  it('permits burst PERMITS_BURST entries by default, under every policy; burst: 1 gives strict turns', () => {
    const loop = (options: Parameters<typeof modeSim>[0]) => {
      const s = modeSim(options)
      for (let k = 0; k < 12; k++) s.acquire(2, 0, TAKE2)
      s.acquire(3, 1, TAKE2)
      for (let k = 0; k < 12; k++) s.release(2, 30 + 10 * k)
      s.release(3, 1000)
      return s.run()
    }
    for (const options of [{}, { readers: 'writers-first' } as const]) {
      const r = loop(options)
      expect(r.violations).toEqual([])
      const [other] = r.of(3, 'acquired')
      // Node 2's first PERMITS_BURST entries ride on one grant, before node 3; then node 3.
      expect(r.of(2, 'acquired').filter((e) => e.t < other!.t)).toHaveLength(PERMITS_BURST)
      expect(r.of(1, 'granted').filter((g) => g.node === 2)).toHaveLength(2)
    }
    // Strict turns: each release of node 2 hands its permits on.
    const strict = loop({ burst: 1 })
    expect(strict.violations).toEqual([])
    const [other] = strict.of(3, 'acquired')
    expect(strict.of(2, 'acquired').filter((e) => e.t < other!.t)).toHaveLength(1)
  })

  it('is checked', () => {
    for (const burst of [0, 1.5, -1, 1001, Number.NaN, '2' as never]) {
      expect(() => centralized({ burst })).toThrow(InvalidArgumentError)
    }
    expect(() => centralized({ burst: 1000 })).not.toThrow()
  })
})
