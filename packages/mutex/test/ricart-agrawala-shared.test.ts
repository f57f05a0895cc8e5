/**
 * Ricart-Agrawala as a readers-writers lock, case by case: which requests a node defers, what
 * goes on the wire and in the events, the snapshot, and two scenarios (readers together, and a
 * writer not starved by readers that come after it).
 */
import type { NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { lockFeaturesOf } from '../src/contract.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { handDriven } from './support/hand-driven.js'
import { type Ask, eventsOf, namedIds, runMutex } from './support/harness.js'

const R = 'default'
const token = (time: number, rank: number) => time * 65536 + rank

/** Node `a` (rank 0) with peers b, c, driven by hand. */
const node = (alwaysAnswer = false) =>
  handDriven(ricartAgrawala({ alwaysAnswer })('a'), 'a', ['b', 'c'])
type Node = ReturnType<typeof node>
/** Gives `a`'s request at `req` the OKs of b and c. */
const allOk = (n: Node, req: number) => {
  for (const from of ['b', 'c'] as NodeId[])
    n.protocol.onMessage(from, { type: 'ok', resource: R, time: req, req }, n.ctx)
}
const request = (n: Node, from: NodeId, time: number, mode?: 'shared' | 'exclusive') =>
  n.protocol.onMessage(
    from,
    { type: 'request', resource: R, time, ...(mode ? { mode } : {}) },
    n.ctx,
  )
/** What `a` answered to whom since `from` (OKs at once, or nothing: deferred). */
const oksSince = (n: Node, from: number) =>
  n.sent.slice(from).flatMap(([to, m]) => ((m as { type: string }).type === 'ok' ? [to] : []))

describe('ricartAgrawala (shared): marked, and what it sends and emits', () => {
  it('is marked as honouring shared entries and views', () => {
    expect(lockFeaturesOf(ricartAgrawala())).toEqual(['shared', 'views'])
  })

  it('a shared request carries its mode on the wire and in its events; an exclusive one carries none', () => {
    const shared = node()
    shared.protocol.onRequest?.({ type: 'acquire', mode: 'shared' }, shared.ctx)
    expect(shared.sent.map(([, m]) => m)).toEqual([
      { type: 'request', resource: R, time: 1, mode: 'shared' },
      { type: 'request', resource: R, time: 1, mode: 'shared' },
    ])
    allOk(shared, 1)
    expect(shared.events).toEqual([
      { type: 'requested', resource: R, time: 1, token: token(1, 0), mode: 'shared' },
      { type: 'acquired', resource: R, token: token(1, 0), mode: 'shared' },
    ])

    // Exclusive, asked either way: exactly the messages and events of before modes.
    for (const req of [{ type: 'acquire' }, { type: 'acquire', mode: 'exclusive' }]) {
      const plain = node()
      plain.protocol.onRequest?.(req, plain.ctx)
      allOk(plain, 1)
      expect(JSON.stringify(plain.sent.map(([, m]) => m))).toBe(
        JSON.stringify([0, 0].map(() => ({ type: 'request', resource: R, time: 1 }))),
      )
      expect(JSON.stringify(plain.events)).toBe(
        JSON.stringify([
          { type: 'requested', resource: R, time: 1, token: token(1, 0) },
          { type: 'acquired', resource: R, token: token(1, 0) },
        ]),
      )
    }
  })

  it('an acquire with permits (not honoured) is granted an exclusive entry', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire', mode: 'shared', permits: { take: 1, of: 3 } }, n.ctx)
    allOk(n, 1)
    expect(n.events.at(-1)).toEqual({ type: 'acquired', resource: R, token: token(1, 0) })
  })

  it('refuses a local acquire with an unknown mode, and a peer request with one', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire', mode: 'read' }, n.ctx)
    n.protocol.onMessage('b', { type: 'request', resource: R, time: 3, mode: 'read' }, n.ctx)
    n.protocol.onMessage('b', { type: 'request', resource: R, time: 3, mode: null }, n.ctx)
    expect(n.events).toEqual([
      { type: 'ignored', from: 'a', reason: "mode is not 'exclusive' or 'shared'" },
      { type: 'ignored', from: 'b', reason: 'malformed request: mode' },
      { type: 'ignored', from: 'b', reason: 'malformed request: mode' },
    ])
    expect(n.sent).toEqual([])
  })
})

describe('ricartAgrawala (shared): whom a node defers', () => {
  it('a reader that holds answers readers at once and defers writers, old peers (no mode) too', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire', mode: 'shared' }, n.ctx)
    allOk(n, 1)
    const before = n.sent.length
    request(n, 'b', 2, 'shared')
    expect(oksSince(n, before)).toEqual(['b'])
    request(n, 'c', 3, 'exclusive')
    request(n, 'b', 4) // a peer that predates modes: exclusive
    expect(oksSince(n, before)).toEqual(['b'])
    expect(
      eventsOf({ events: n.events.map((event) => ({ node: 'a', t: 0, event })) }, 'deferred').map(
        (e) => [e.event.to, e.event.time],
      ),
    ).toEqual([
      ['c', 3],
      ['b', 4],
    ])
    // On release both deferred writers get their OK, for their own requests.
    n.protocol.onRequest?.({ type: 'release' }, n.ctx)
    expect(n.sent.slice(-2).map(([to, m]) => [to, (m as { req: number }).req])).toEqual([
      ['c', 3],
      ['b', 4],
    ])
  })

  it('a reader that wants: defers a later writer, answers an earlier writer and every reader', () => {
    const n = node()
    n.protocol.onMessage('c', { type: 'ok', resource: R, time: 4, req: 9 }, n.ctx) // clock to 4
    n.events.length = 0
    n.protocol.onRequest?.({ type: 'acquire', mode: 'shared' }, n.ctx) // T = 5
    const before = n.sent.length
    request(n, 'b', 6, 'exclusive') // later: deferred
    request(n, 'c', 3, 'exclusive') // earlier: OK at once
    request(n, 'b', 2, 'shared') // a reader, earlier
    request(n, 'c', 9, 'shared') // a reader, later: still OK at once
    expect(oksSince(n, before)).toEqual(['c', 'b', 'c'])
    expect(n.events.filter((e) => e.type === 'deferred')).toEqual([
      { type: 'deferred', to: 'b', resource: R, time: 6 },
    ])
  })

  it('a writer that wants defers a later reader and answers an earlier one', () => {
    const n = node(true)
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx) // T = 1
    const before = n.sent.length
    request(n, 'b', 1, 'shared') // (1, b) after (1, a): deferred, DENY with alwaysAnswer
    request(n, 'c', 0, 'shared') // earlier: OK
    expect(n.sent.slice(before).map(([to, m]) => [to, (m as { type: string }).type])).toEqual([
      ['b', 'deny'],
      ['c', 'ok'],
    ])
  })

  it('local acquires queued while holding are served in order, each in its mode', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
    n.protocol.onRequest?.({ type: 'acquire', mode: 'shared' }, n.ctx)
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
    expect(n.protocol.snapshot?.()).toMatchObject({
      resources: [[R, { state: 'WANTED', mode: 'exclusive', queued: ['shared', 'exclusive'] }]],
    })
    // Each turn: OKs for the current request (its time from `requested`), then release.
    const lastTime = () => n.events.filter((e) => e.type === 'requested').at(-1)!.time
    for (let turn = 0; turn < 3; turn++) {
      allOk(n, lastTime())
      n.protocol.onRequest?.({ type: 'release' }, n.ctx)
    }
    const times = n.events.flatMap((e) => (e.type === 'requested' ? [e.time] : []))
    expect(n.events.filter((e) => e.type === 'acquired')).toEqual([
      { type: 'acquired', resource: R, token: token(times[0]!, 0) },
      { type: 'acquired', resource: R, token: token(times[1]!, 0), mode: 'shared' },
      { type: 'acquired', resource: R, token: token(times[2]!, 0) },
    ])
  })
})

describe('ricartAgrawala (shared): snapshots', () => {
  it('the mode is in the snapshot, and a released resource snapshots as it did before any mode', () => {
    const snap = (mode?: 'shared') => {
      const n = node()
      n.protocol.onRequest?.({ type: 'acquire', ...(mode ? { mode } : {}) }, n.ctx)
      const wanted = n.protocol.snapshot?.()
      allOk(n, 1)
      n.protocol.onRequest?.({ type: 'release' }, n.ctx)
      return { wanted, released: n.protocol.snapshot?.() }
    }
    const shared = snap('shared')
    const exclusive = snap()
    expect(shared.wanted).not.toEqual(exclusive.wanted)
    expect(shared.wanted).toMatchObject({ resources: [[R, { mode: 'shared' }]] })
    expect(JSON.stringify(shared.released)).toBe(JSON.stringify(exclusive.released))
  })

  it('restore() brings the mode and the queued modes back', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire', mode: 'shared' }, n.ctx)
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
    const copy = handDriven(ricartAgrawala()('a'), 'a', ['b', 'c'])
    copy.protocol.restore?.(n.protocol.snapshot?.())
    expect(copy.protocol.snapshot?.()).toEqual(n.protocol.snapshot?.())
    const before = copy.sent.length
    request(copy, 'b', 5, 'shared') // a reader that wants answers a reader at once
    expect(oksSince(copy, before)).toEqual(['b'])
  })
})

describe('ricartAgrawala (shared): in the simulator', () => {
  it('readers hold together: three shared acquires at once overlap, exclusive ones do not', () => {
    const asks = (mode?: 'shared') =>
      namedIds(3).map((n) => ({ node: n, at: 0, hold: 30, ...(mode ? { mode } : {}) }))
    const readers = runMutex(namedIds(3), ricartAgrawala(), asks('shared'), {
      seed: 1,
      net: { latency: 2 },
    })
    expect(readers.violations).toEqual([])
    // All three enter one round trip after asking, long before anyone leaves.
    expect(eventsOf(readers, 'acquired').map((e) => [e.t, e.event.mode])).toEqual([
      [4, 'shared'],
      [4, 'shared'],
      [4, 'shared'],
    ])
    expect(eventsOf(readers, 'deferred')).toEqual([])
    expect(readers.net.stats.sent).toBe(3 * 2 * 2) // still 2(n - 1) per entry

    const writers = runMutex(namedIds(3), ricartAgrawala(), asks(), {
      seed: 1,
      net: { latency: 2 },
    })
    expect(writers.violations).toEqual([])
    expect(eventsOf(writers, 'acquired').map((e) => e.t)).toEqual([4, 34 + 2, 66 + 2])
  })

  it('no writer starvation: a reader that asks after a waiting writer enters after it', () => {
    // p1 reads for long; p2 asks to write while p1 holds; p3 asks to read once p2's request
    // reached it (its clock merged p2's time, so its request is later and p2 defers it).
    const run = runMutex(
      namedIds(3),
      ricartAgrawala(),
      [
        { node: 'p1', at: 0, hold: 100, mode: 'shared' },
        { node: 'p2', at: 10, hold: 5 },
        { node: 'p3', at: 20, hold: 5, mode: 'shared' },
      ] satisfies Ask[],
      { seed: 1, net: { latency: 2 } },
    )
    expect(run.violations).toEqual([])
    expect(run.order).toEqual({ default: ['p1', 'p2', 'p3'] })
    const deferred = eventsOf(run, 'deferred').map((e) => [e.node, e.event.to])
    // p1 (holding) defers the writer; the writer defers the later reader; p1 lets p3 read.
    expect(deferred).toEqual([
      ['p1', 'p2'],
      ['p2', 'p3'],
    ])
    const [, w, r3] = eventsOf(run, 'acquired')
    const wReleased = eventsOf(run, 'released').find((e) => e.node === 'p2')!
    expect(w!.t).toBeGreaterThan(100)
    expect(r3!.t).toBeGreaterThan(wReleased.t)
    // Tokens: the writer's above the first reader's, the later reader's above the writer's.
    expect(r3!.event.token).toBeGreaterThan(w!.event.token)
  })
})

describe('ricartAgrawala: a late duplicate of an older request', () => {
  it('does not replace the newer request it deferred (that requester would wait for good)', () => {
    const n = node()
    n.protocol.onRequest?.({ type: 'acquire' }, n.ctx)
    allOk(n, 1) // a holds
    request(n, 'b', 9) // deferred
    request(n, 'b', 3) // an old copy, duplicated on the way
    expect(n.events.at(-1)).toMatchObject({ type: 'ignored', from: 'b' })
    const before = n.sent.length
    n.protocol.onRequest?.({ type: 'release' }, n.ctx)
    // The OK answers the request b waits on, not the old copy.
    expect(n.sent.slice(before).map(([to, m]) => [to, (m as { req: number }).req])).toEqual([
      ['b', 9],
    ])
  })
})
