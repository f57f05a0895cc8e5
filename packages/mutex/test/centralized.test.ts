import { createRandom, isSdError, type NodeId, SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import {
  CoordinatorUnreachableError,
  InvalidArgumentError,
  LeaseLostError,
  MutexAbortedError,
  MutexTimeoutError,
} from '../src/errors.js'
import { type Ask, type MutexRun, randomAsks, runMutex } from './support/harness.js'

const idsOf = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
const eventsOf = <Ev extends { type: string }, T extends Ev['type']>(run: MutexRun<Ev>, type: T) =>
  ofType(run.events, type)
const RESOURCES = ['a', 'b', 'c']

/** A random workload over a few named resources. */
function workload(seed: number, ids: readonly NodeId[], count: number): Ask[] {
  const rnd = createRandom(`asks-${seed}`)
  return randomAsks(ids, () => rnd.next(), count, 300).map((a) => ({
    ...a,
    resource: RESOURCES[rnd.int(0, RESOURCES.length - 1)]!,
  }))
}

describe('centralized: options', () => {
  it('refuses options outside their domain with ERR_INVALID_ARGUMENT', () => {
    const bad = [
      { term: -1 },
      { term: 1.5 },
      { whenBusy: 'wait' },
      { leaseMs: 0 },
      { leaseMs: 30, renewEveryMs: 30 },
      { renewEveryMs: 5 },
      { answerTimeoutMs: Number.NaN },
      { retryBaseMs: 50, retryMaxMs: 10 },
      { coordinator: {} },
    ]
    for (const options of bad) {
      expect(() => centralized(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      )
    }
    expect(() => centralized({ leaseMs: 30, whenBusy: 'deny' })).not.toThrow()
  })

  it('refuses a first coordinator that is not a member when the node starts', () => {
    const net = new SimNetwork({ seed: 1 })
    let thrown: unknown
    try {
      net.launch([1, 2], centralized({ coordinator: 9 }))
    } catch (error) {
      thrown = error
    }
    // The simulator reports the start that threw (ERR_SIMULATION), caused by ERR_PROTOCOL.
    const protocolError = thrown instanceof Error ? thrown.cause : undefined
    expect(isSdError(protocolError, 'ERR_PROTOCOL')).toBe(true)
    expect(isSdError(protocolError) && isSdError(protocolError.cause, 'ERR_INVALID_ARGUMENT')).toBe(
      true,
    )
  })
})

describe('mutex errors', () => {
  it('are SdErrors with stable codes, recognised across copies by isSdError', () => {
    const cases = [
      [new MutexTimeoutError('r', 50), 'ERR_MUTEX_TIMEOUT'],
      [new MutexAbortedError('r', 'stop'), 'ERR_MUTEX_ABORTED'],
      [new CoordinatorUnreachableError(3, 100), 'ERR_COORDINATOR_UNREACHABLE'],
      [new LeaseLostError('r', 7), 'ERR_LEASE_LOST'],
      [new InvalidArgumentError('bad'), 'ERR_INVALID_ARGUMENT'],
    ] as const
    for (const [error, code] of cases) {
      expect(error.code).toBe(code)
      expect(isSdError(error, code as never)).toBe(true)
      expect(error.name).toBe(error.constructor.name)
    }
    expect(new LeaseLostError('r', 7).message).toContain('token 7')
  })
})

describe('centralized: fault-free', () => {
  for (const [fifo, leases] of [
    [true, false],
    [false, false],
    [false, true],
  ] as const) {
    it(`never two holders, every request granted, in the order received (fifo: ${fifo}, leases: ${leases})`, () => {
      const protocol = centralized(leases ? { leaseMs: 40, maxDelayMs: 20 } : {})
      forSeeds(seedList(150), (seed) => {
        const rnd = createRandom(seed)
        const ids = idsOf(rnd.int(1, 7))
        const asks = workload(seed, ids, rnd.int(5, 40))
        const run = runMutex(ids, protocol, asks, {
          seed,
          net: { fifo, latency: { kind: 'uniform', min: 1, max: 20 } },
        })
        expect(run.violations).toEqual([])
        expect(run.granted).toBe(run.asked)
        // FIFO: the entries of each resource follow the order the coordinator accepted requests.
        const received: Record<string, NodeId[]> = {}
        for (const e of eventsOf(run, 'requested')) {
          const { resource, node } = e.event
          received[resource] = [...(received[resource] ?? []), node]
        }
        expect(run.order).toEqual(received)
        // Nothing ignored, but a renewal its own RELEASE overtook (links that reorder).
        const ignored = eventsOf(run, 'ignored').filter(
          (e) => !/^renew of .* it does not hold$/.test(e.event.reason),
        )
        expect(ignored, JSON.stringify(ignored)).toEqual([])
      })
    })
  }

  it('exactly 3 messages per use with a remote coordinator, none when the node coordinates', () => {
    forSeeds(seedList(100), (seed) => {
      const rnd = createRandom(seed)
      const ids = idsOf(rnd.int(2, 6))
      const clients = ids.filter((id) => id !== 1)
      const asks = workload(seed, clients, rnd.int(3, 30))
      const run = runMutex(ids, centralized({ coordinator: 1 }), asks, {
        seed,
        net: { fifo: false, latency: { kind: 'uniform', min: 1, max: 20 } },
      })
      expect(run.granted).toBe(asks.length)
      expect(run.net.stats.sent).toBe(3 * asks.length)
      expect(run.net.stats.byType).toEqual({
        request: asks.length,
        grant: asks.length,
        release: asks.length,
      })
      const own = workload(seed, [1], rnd.int(3, 30))
      const alone = runMutex(ids, centralized({ coordinator: 1 }), own, { seed })
      expect(alone.granted).toBe(own.length)
      expect(alone.violations).toEqual([])
      expect(alone.net.stats.sent).toBe(0)
    })
  })

  it('tokens strictly increase on each resource, term-led (term * 2^32 + counter)', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 5, resource: 'x' },
      { node: 3, at: 1, hold: 5, resource: 'x' },
      { node: 2, at: 2, hold: 5, resource: 'y' },
    ]
    const run = runMutex([1, 2, 3], centralized({ term: 3 }), asks, { seed: 1 })
    const tokens = eventsOf(run, 'acquired').map((e) => e.event)
    expect(tokens).toEqual([
      { type: 'acquired', resource: 'x', token: 3 * 2 ** 32 + 1 },
      { type: 'acquired', resource: 'y', token: 3 * 2 ** 32 + 1 },
      { type: 'acquired', resource: 'x', token: 3 * 2 ** 32 + 2 },
    ])
  })
})

describe('centralized: measured cost (fixed latency 1)', () => {
  it('3 messages per use; client delay 2 message delays; synchronization delay 2', () => {
    // Node 2 enters at once (free); node 3 asks while 2 holds and enters after 2's release.
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 10, resource: 'r' },
      { node: 3, at: 1, hold: 10, resource: 'r' },
    ]
    const run = runMutex([1, 2, 3], centralized({ coordinator: 1 }), asks, {
      seed: 1,
      net: { latency: 1 },
    })
    const t = (type: CentralizedEvent['type'], node: NodeId) =>
      eventsOf(run, type).find((e) => e.node === node)!.t
    expect(t('acquired', 2) - 0).toBe(2) // request + grant
    expect(t('acquired', 3) - t('released', 2)).toBe(2) // release + grant
    expect(run.net.stats.sent / run.entries).toBe(3)
  })
})

describe('centralized: malformed input', () => {
  it('reports malformed or misdirected messages and requests as ignored, never throws', () => {
    const net = new SimNetwork({ seed: 1 })
    const seen: Array<{ node: NodeId; event: { type: string; reason?: string } }> = []
    net.launch([1, 2], centralized({ coordinator: 1 }), {
      onEmit: (node, event) => seen.push({ node, event }),
    })
    const raw = net.addNode('intruder')
    for (const msg of [
      null,
      'grant',
      { type: 'grant' },
      { type: 'request', term: 0, resource: 7, seq: 1 },
      { type: 'sync', term: 0, held: [{ resource: 'r' }], wanted: [] },
      { type: 'bogus', term: 0 },
      { type: 'toString', term: 0 },
    ]) {
      raw.send(1, msg)
    }
    raw.send(2, { type: 'request', term: 0, resource: 'r', seq: 1 }) // 2 does not coordinate
    raw.send(2, { type: 'grant', term: 0, resource: 'r', seq: 1, token: 9 }) // not from the coordinator
    raw.send(1, { type: 'release', term: 0, resource: 'r', token: 4 }) // not the holder
    net.request<unknown>(1, { type: 'acquire', resource: 5 })
    net.request<unknown>(1, { type: 'coordinator', id: 2, term: -1 })
    net.request<unknown>(1, { type: 'nonsense' })
    net.request<unknown>(1, { type: 'coordinator', id: 'stranger', term: 5 })
    net.run()
    const ignored = seen.filter((s) => s.event.type === 'ignored')
    expect(ignored).toHaveLength(14)
    expect(seen.filter((s) => s.event.type === 'acquired')).toEqual([])
  })
})

describe("centralized: whenBusy 'deny'", () => {
  const deny = centralized({
    whenBusy: 'deny',
    answerTimeoutMs: 100,
    retryBaseMs: 2,
    retryMaxMs: 50,
  })

  it('keeps safety and lets every request in eventually, with reordering', () => {
    forSeeds(seedList(150), (seed) => {
      const rnd = createRandom(seed)
      const ids = idsOf(rnd.int(1, 6))
      const asks = workload(seed, ids, rnd.int(5, 30))
      const run = runMutex(ids, deny, asks, {
        seed,
        net: { fifo: false, latency: { kind: 'uniform', min: 1, max: 20 } },
      })
      expect(run.violations).toEqual([])
      expect(run.granted).toBe(run.asked)
      expect(eventsOf(run, 'coordinator-unreachable')).toEqual([])
    })
  })

  it('answers a busy resource with DENIED and retries with growing, jittered backoff', () => {
    const asks: Ask[] = [
      { node: 2, at: 0, hold: 200 },
      { node: 3, at: 1, hold: 1 },
    ]
    const run = runMutex([1, 2, 3], deny, asks, { seed: 3, net: { latency: 1 } })
    expect(run.violations).toEqual([])
    expect(run.granted).toBe(2)
    const waits = eventsOf(run, 'denied').map((e) => e.event.retryInMs)
    expect(waits.length).toBeGreaterThan(4)
    waits.forEach((w, i) => {
      const cap = Math.min(50, 2 * 2 ** i)
      expect(w).toBeGreaterThanOrEqual(cap / 2)
      expect(w).toBeLessThanOrEqual(cap)
    })
    expect(new Set(waits.slice(-3)).size).toBe(3) // jittered, not a fixed 50
    expect(eventsOf(run, 'coordinator-unreachable')).toEqual([])
  })

  it('tells a dead coordinator from a refusal, and keeps the request for the next coordinator', () => {
    const leased = centralized({
      whenBusy: 'deny',
      answerTimeoutMs: 100,
      retryBaseMs: 2,
      retryMaxMs: 50,
      leaseMs: 40,
    })
    const asks: Ask[] = [{ node: 2, at: 10, hold: 1 }]
    const run = runMutex([1, 2, 3], leased, asks, {
      seed: 1,
      net: { latency: 1 },
      until: 2000,
      faults: (net) => {
        net.at(5, () => net.crash(1))
        net.at(300, () => {
          for (const id of [2, 3]) net.request(id, { type: 'coordinator', id: 3, term: 1 })
        })
      },
    })
    expect(eventsOf(run, 'coordinator-unreachable')).toEqual([
      { node: 2, t: 110, event: { type: 'coordinator-unreachable', coordinator: 1, term: 0 } },
    ])
    // Node 3 waits out one lease (40 + 20 ms, node 1 cannot report) before its first grant,
    // refusing meanwhile; node 2's request, kept pending, then gets in.
    const [acquired] = eventsOf(run, 'acquired')
    expect(acquired?.node).toBe(2)
    expect(acquired!.t).toBeGreaterThanOrEqual(360)
    const denied = eventsOf(run, 'denied')
    expect(denied.length).toBeGreaterThan(0)
    expect(denied.every((e) => e.t > 300 && e.t <= 362)).toBe(true)
    expect(run.violations).toEqual([])
  })
})
