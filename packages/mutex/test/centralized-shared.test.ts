import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { InvalidArgumentError } from '../src/errors.js'
import { modeSim } from './support/mode-sim.js'

const SHARED = { mode: 'shared' } as const

describe('centralized: shared entries', () => {
  it('readers hold together; a writer waits for all of them, and its token is above theirs', () => {
    const s = modeSim()
    s.acquire(2, 0, SHARED)
    s.acquire(3, 1, SHARED)
    s.acquire(4, 2) // exclusive
    s.release(2, 50)
    s.release(3, 80)
    s.release(4, 120)
    const r = s.run()
    expect(r.violations).toEqual([])
    const [a2] = r.of(2, 'acquired')
    const [a3] = r.of(3, 'acquired')
    const [a4] = r.of(4, 'acquired')
    expect(a2).toMatchObject({ mode: 'shared' })
    expect(a3!.t).toBeLessThan(50) // beside node 2
    expect(a4!.t).toBeGreaterThan(80) // after both readers left
    expect(a4).not.toHaveProperty('mode')
    expect(a4!.token).toBeGreaterThan(Math.max(a2!.token, a3!.token))
  })

  it("fifo (default): a reader behind a waiting writer waits (writers don't starve)", () => {
    const s = modeSim()
    s.acquire(2, 0, SHARED)
    s.acquire(3, 20) // writer, queued behind the reader
    s.acquire(4, 40, SHARED) // reader behind the writer
    s.release(2, 100)
    s.release(3, 150)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.entered).toEqual([2, 3, 4])
    expect(r.of(4, 'acquired')[0]!.t).toBeGreaterThan(150)
  })

  it('readers-first: a new reader joins the readers past a waiting writer (writers can starve)', () => {
    const s = modeSim({ readers: 'readers-first' })
    s.acquire(2, 0, SHARED)
    s.acquire(3, 20) // writer
    s.acquire(4, 40, SHARED)
    s.release(2, 100)
    s.release(4, 150)
    s.release(3, 300)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.entered).toEqual([2, 4, 3])
    expect(r.of(4, 'acquired')[0]!.t).toBeLessThan(100) // beside node 2
    expect(r.of(3, 'acquired')[0]!.t).toBeGreaterThan(150)
  })

  it('writers-first: a waiting writer goes before readers that waited longer', () => {
    const s = modeSim({ readers: 'writers-first' })
    s.acquire(2, 0) // writer holds
    s.acquire(3, 20, SHARED) // reader waits
    s.acquire(4, 40) // writer waits, after the reader
    s.release(2, 100)
    s.release(4, 150)
    s.release(3, 200)
    const r = s.run()
    expect(r.violations).toEqual([])
    expect(r.entered).toEqual([2, 4, 3])
  })

  it('fifo with the same workload serves the reader first', () => {
    const s = modeSim()
    s.acquire(2, 0)
    s.acquire(3, 20, SHARED)
    s.acquire(4, 40)
    s.release(2, 100)
    s.release(3, 150)
    const r = s.run()
    expect(r.entered).toEqual([2, 3, 4])
  })

  it('shared holders survive a change of coordinator: their SYNC claims carry the mode', () => {
    const s = modeSim({ leaseMs: 200, maxDelayMs: 50 })
    s.acquire(2, 0, SHARED)
    s.acquire(3, 0, SHARED)
    for (const node of [1, 2, 3, 4]) {
      s.net.request(node, { type: 'coordinator', id: 4, term: 1 }, 30)
    }
    s.acquire(1, 40) // a writer, at the new coordinator
    s.release(2, 100)
    s.release(3, 120)
    const r = s.run()
    expect(r.violations).toEqual([])
    // Both readers were taken back as holders (no revocation), and the writer came after them.
    expect(r.of(2, 'lease-lost')).toEqual([])
    expect(r.of(3, 'lease-lost')).toEqual([])
    expect(r.of(1, 'acquired')[0]!.t).toBeGreaterThan(120)
  })

  it('an exclusive-only run emits no mode fields, and a malformed acquire is ignored', () => {
    const s = modeSim()
    s.acquire(2, 0)
    s.net.request(3, { type: 'acquire', mode: 'reader' } as never, 0)
    s.net.request(3, { type: 'acquire', ifAvailable: true, steal: true }, 0)
    s.release(2, 10)
    const r = s.run()
    expect(Object.keys(r.of(2, 'acquired')[0]!).sort()).toEqual(['resource', 't', 'token', 'type'])
    expect(r.of(3, 'ignored').map((e) => e.reason)).toEqual([
      'malformed acquire: unknown mode',
      'malformed acquire: ifAvailable and steal together',
    ])
  })

  it('checks its new options', () => {
    expect(() => centralized({ readers: 'lifo' as never })).toThrow(InvalidArgumentError)
    expect(() => centralized({ lockDelayMs: 10 })).toThrow(/needs leaseMs/)
    expect(() => centralized({ leaseMs: 10, lockDelayMs: -1 })).toThrow(InvalidArgumentError)
  })
})
