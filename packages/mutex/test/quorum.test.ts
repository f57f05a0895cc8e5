import { createRandom, messageType, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { MutexRequest } from '../src/contract.js'
import { type QuorumMutexEvent, quorumMutex } from '../src/quorum/index.js'
import { randomAsks, runMutex } from './support/harness.js'
import { coordinators } from './support/quorum-runs.js'

const clients = ['p1', 'p2', 'p3']
const everyone = [...coordinators, ...clients]
const invalid = expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' })

describe('quorumMutex: options', () => {
  it('refuses a quorum that is no majority, and other bad settings, at construction', () => {
    expect(() => quorumMutex({ coordinators: [] })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators: ['a', 'a', 'b'] })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, m: 2 })).toThrow(invalid) // 2 <= 5/2
    expect(() => quorumMutex({ coordinators: ['a', 'b', 'c', 'd'], m: 2 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, m: 6 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, m: 3.5 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, timeoutMs: 0 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, backoffMs: -1 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, backoffMs: 50, maxBackoffMs: 10 })).toThrow(invalid)
    expect(() => quorumMutex({ coordinators, m: 3 })).not.toThrow()
    expect(() => quorumMutex({ coordinators: ['solo'] })).not.toThrow() // m defaults to 1 of 1
  })

  it('refuses coordinators that are not members when it starts', () => {
    const net = new SimNetwork({ seed: 1 })
    expect(() => net.launch(['c1', 'p1'], quorumMutex({ coordinators: ['c1', 'c9'] }))).toThrow(
      /c9 are not members/,
    )
  })
})

describe('quorumMutex: fault-free runs', () => {
  it('enters with m grants and costs 3n messages per entry without contention', () => {
    // One client at a time: n requests, n grants, n releases.
    const asks = [0, 100, 200, 300].map((at, i) => ({ node: clients[i % 3]!, at, hold: 5 }))
    const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, { seed: 1 })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(4)
    expect(run.net.stats.sent).toBe(4 * 3 * coordinators.length)
    const grants = run.events.filter((e) => e.event.type === 'grants')
    // Every coordinator answers within the same latency, so the m-th grant comes with the others.
    expect(grants.map((e) => e.event)).toEqual(
      Array(4).fill({ type: 'grants', resource: 'default', count: 3, of: 5 }),
    )
    // Tokens strictly increase, across different quorums.
    const tokens = run.events
      .map((e) => e.event)
      .filter((e) => e.type === 'acquired')
      .map((e) => e.token!)
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b))
    expect(new Set(tokens).size).toBe(4)
  })

  it('a coordinator that is also a client answers itself without a message', () => {
    const asks = [{ node: 'c1', at: 0, hold: 5 }]
    const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, { seed: 1 })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(1)
    expect(run.net.stats.sent).toBe(3 * (coordinators.length - 1))
  })

  it('never two holders, every request granted, tokens increasing (contention, reordering)', () => {
    forSeeds(seedList(60), (seed) => {
      const random = createRandom(`asks/${seed}`).next
      const asks = randomAsks(everyone, random, 25, 300, 8)
      const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 }, fifo: false },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(run.asked)
      expect(run.entries).toBe(run.asked)
    })
  })

  it('the same with duplicated messages and a larger quorum (n = 7, m = 6)', () => {
    const seven = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']
    const ids = [...seven, 'p1', 'p2']
    forSeeds(seedList(30), (seed) => {
      const random = createRandom(`asks/${seed}`).next
      const asks = randomAsks(ids, random, 15, 200, 5)
      const run = runMutex(ids, quorumMutex({ coordinators: seven, m: 6 }), asks, {
        seed,
        net: { latency: { kind: 'exponential', mean: 4, min: 1 }, fifo: false, duplicate: 0.1 },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(run.asked)
    })
  })

  it('contention resolves through random backoff, which the trace shows', () => {
    // Every client asks at once: grants split, everyone backs off, someone wins.
    const asks = everyone.map((node) => ({ node, at: 0, hold: 3 }))
    const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, {
      seed: 3,
      net: { latency: { kind: 'uniform', min: 1, max: 10 } },
    })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(everyone.length)
    const backoffs = run.events.filter((e) => e.event.type === 'backoff')
    expect(backoffs.length).toBeGreaterThan(0)
  })

  it('serves several resources independently, and queued acquires of one node in turn', () => {
    const asks = [
      { node: 'p1', at: 0, hold: 20, resource: 'x' },
      { node: 'p2', at: 0, hold: 20, resource: 'y' },
      { node: 'p1', at: 1, hold: 5, resource: 'x' }, // waits for its own first turn
      { node: 'p3', at: 2, hold: 5, resource: 'x' },
    ]
    const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, { seed: 2 })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(4)
    const firstY = run.events.find((e) => 'resource' in e.event && e.event.resource === 'y')
    expect(firstY?.t).toBeLessThan(20) // y was not kept waiting behind x
  })
})

describe('quorumMutex: crashed coordinators (no restart)', () => {
  it('tolerates n - m of them: a round they leave unfinished ends at the timeout', () => {
    forSeeds(seedList(20), (seed) => {
      const random = createRandom(`asks/${seed}`).next
      const asks = randomAsks(clients, random, 10, 300, 8)
      const run = runMutex(everyone, quorumMutex({ coordinators, m: 3, timeoutMs: 50 }), asks, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 } },
        faults: (net) => {
          net.crash('c4')
          net.crash('c5')
        },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(run.asked)
    })
  })

  it('with more than n - m down nobody enters; the backoff window doubles up to its cap', () => {
    const options = { coordinators, m: 3, timeoutMs: 20, backoffMs: 10, maxBackoffMs: 80 }
    const run = runMutex(everyone, quorumMutex(options), [{ node: 'p1', at: 0, hold: 1 }], {
      seed: 4,
      faults: (net) => {
        for (const c of ['c3', 'c4', 'c5']) net.crash(c)
      },
      until: 2000,
    })
    expect(run.granted).toBe(0)
    const backoffs = run.events.map((e) => e.event).filter((e) => e.type === 'backoff')
    expect(backoffs.length).toBeGreaterThan(10)
    expect(backoffs.map((b) => b.attempt)).toEqual(backoffs.map((_, i) => i + 1))
    backoffs.forEach((b, i) => {
      const window = Math.min(80, 10 * 2 ** i)
      expect(b.delay).toBeGreaterThanOrEqual(1)
      expect(b.delay).toBeLessThanOrEqual(1 + window)
    })
    // Each failed round gave back the two grants it got: c1 and c2 are free again.
    const releases = run.net.trace.filter(
      (e) => e.type === 'send' && messageType(e.msg) === 'release',
    )
    expect(releases.length).toBe(2 * backoffs.length)
  })
})

describe('quorumMutex: what it ignores', () => {
  it('reports malformed messages, requests to non-coordinators and stray releases', () => {
    const net = new SimNetwork({ seed: 1 })
    const ignored: QuorumMutexEvent[] = []
    const group = net.launch(everyone, quorumMutex({ coordinators, m: 3 }), {
      onEmit: (_node, e) => {
        if (e.type === 'ignored') ignored.push(e)
      },
    })
    const raw = net.addNode('intruder')
    raw.send('c1', { type: 'request', resource: 'default' }) // no session
    raw.send('c1', 'hello')
    raw.send('p1', { type: 'request', resource: 'default', session: 1, attempt: 1, token: 0 })
    raw.send('p1', { type: 'grant', resource: 'default', session: 1, attempt: 1, counter: 1 })
    raw.send('c2', { type: 'release', resource: 'default', session: 1, attempt: 1, token: 0 })
    group.request('p2', { type: 'release' } satisfies MutexRequest)
    net.request('p2', { type: 'bogus' }) // untyped, as plain JavaScript could ask
    net.run()
    expect(ignored).toEqual([
      { type: 'ignored', from: 'p2', reason: 'release of default: not held' },
      { type: 'ignored', from: 'p2', reason: 'malformed request' },
      { type: 'ignored', from: 'intruder', reason: 'malformed request: session' },
      { type: 'ignored', from: 'intruder', reason: 'not an object' },
      { type: 'ignored', from: 'intruder', reason: 'request: not a coordinator' },
      { type: 'ignored', from: 'intruder', reason: 'grant: sender is no coordinator' },
      {
        type: 'ignored',
        from: 'intruder',
        reason: 'release of default: not the grant held here',
      },
    ])
  })
})
