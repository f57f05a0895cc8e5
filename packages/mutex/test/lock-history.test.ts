/**
 * A simulated run's lock history from its trace alone (`lockHistoryFromTrace`), judged by the
 * linearizability checker's lock model: the centralized lock with leases (a holder paused past its
 * lease, releasing late, included) and Ricart-Agrawala without leases are linearizable; the same trace with one
 * grant moved into another's holding is not, and its minimal sub-history is the two grants.
 */
import { type ProtocolFactory, SimNetwork, type TraceEvent } from '@sd/transport'
import { checkHistory, lockModel } from '@sd/transport/history'
import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import type { MutexRequest } from '../src/contract.js'
import { lockHistoryFromTrace } from '../src/history.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'

const lock = lockModel({ strayRelease: 'ignore' })

/** Each of three nodes takes the lock `rounds` times, holding it 10 ms; node 3 pauses once. */
function run(factory: 'centralized' | 'ricart-agrawala', pause: boolean): readonly TraceEvent[] {
  const net = new SimNetwork({ seed: 4, latency: { kind: 'uniform', min: 1, max: 6 } })
  const algorithm: ProtocolFactory<never, MutexRequest, { type: string }> =
    factory === 'centralized'
      ? centralized({ coordinator: 1, leaseMs: 100, maxDelayMs: 50 })
      : ricartAgrawala()
  const group = net.launch([1, 2, 3], algorithm, {
    onEmit(node, event) {
      if (event.type !== 'acquired') return
      const taken = (counts.get(node) ?? 0) + 1
      counts.set(node, taken)
      const release: MutexRequest = { type: 'release' }
      // Node 3's first holding: paused inside it, past its lease (the lock moves on).
      if (pause && node === 3 && taken === 1) {
        net.at(net.now + 2, () => net.pause(3))
        net.at(net.now + 400, () => net.resume(3))
      }
      group.request(node, release, net.now + 10)
      if (taken < 4) group.request(node, { type: 'acquire' }, net.now + 15)
    },
  })
  const counts = new Map<unknown, number>()
  for (const node of [1, 2, 3]) group.request(node, { type: 'acquire' }, node)
  net.run({ until: 3000 })
  return net.trace
}

describe('lockHistoryFromTrace', () => {
  it.each([
    ['centralized', true],
    ['ricart-agrawala', false],
  ] as const)('%s: every holding is in the history, and it is linearizable', (name, pause) => {
    const trace = run(name, pause)
    const history = lockHistoryFromTrace(trace)
    const acquired = trace.filter(
      (e) => e.type === 'emit' && (e.event as { type: string }).type === 'acquired',
    )
    const grants = history.filter((o) => o.input.f === 'acquire' && o.output !== undefined)
    expect(grants).toHaveLength(acquired.length)
    expect(grants.length).toBeGreaterThanOrEqual(10)
    for (const g of grants) expect(g.completedAt! >= g.invokedAt).toBe(true)
    if (name === 'ricart-agrawala')
      for (const g of grants) expect(g.output!.leaseEnd).toBe(Number.POSITIVE_INFINITY)
    if (pause) {
      // Node 3 woke long after its lease ended: others were granted before its late release.
      const first3 = grants.find((g) => g.client === 3)!
      const release3 = history.find(
        (o) => o.input.f === 'release' && o.input.token === first3.output!.token,
      )!
      const between = grants.filter(
        (g) => g.completedAt! > first3.completedAt! && g.completedAt! < release3.completedAt!,
      )
      expect(first3.output!.leaseEnd).toBeLessThan(between[0]!.completedAt!)
      expect(between.length).toBeGreaterThanOrEqual(2)
    }
    const r = checkHistory(lock, history)
    expect(r.verdict).toBe('linearizable')
  })

  it('a grant moved into another holding is two holders: the sub-history is the two holdings', () => {
    const trace = run('centralized', false)
    const acquired = trace.flatMap((e, i) =>
      e.type === 'emit' && (e.event as { type: string }).type === 'acquired' ? [i] : [],
    )
    const [first, second] = [acquired[3]!, acquired[4]!]
    const moved = trace.map((e, i) => (i === second ? { ...e, t: trace[first]!.t + 1 } : e))
    const r = checkHistory(lock, lockHistoryFromTrace(moved))
    expect(r.verdict).toBe('not-linearizable')
    if (r.verdict !== 'not-linearizable') return
    expect(r.minimal).toBe(true)
    // The two grants, each with its release (shrinking keeps a holding whole).
    const grants = r.counterexample.filter((o) => o.input.f === 'acquire')
    const tokens = grants.map((o) => o.output?.token)
    for (const o of r.counterexample)
      if (o.input.f === 'release') expect(tokens).toContain(o.input.token)
    expect(grants.map((o) => [o.client, o.completedAt])).toEqual([
      [trace[first]!.type === 'emit' ? trace[first]!.node : '', trace[first]!.t],
      [moved[second]!.type === 'emit' ? moved[second]!.node : '', trace[first]!.t + 1],
    ])
  })

  it('a crash ends the holding; a lease-lost too; an acquire never answered is pending', () => {
    const entries: TraceEvent[] = [
      { t: 0, type: 'request', node: 'a', req: { type: 'acquire', resource: 'r' } },
      { t: 2, type: 'emit', node: 'a', event: { type: 'acquired', resource: 'r', token: 1 } },
      { t: 5, type: 'crash', node: 'a' },
      { t: 6, type: 'request', node: 'b', req: { type: 'acquire', resource: 'r' } },
      {
        t: 8,
        type: 'emit',
        node: 'b',
        event: { type: 'acquired', resource: 'r', token: 2, leaseMs: 50 },
      },
      {
        t: 9,
        type: 'emit',
        node: 'b',
        event: { type: 'lease-renewed', resource: 'r', token: 2, validForMs: 50 },
      },
      { t: 20, type: 'emit', node: 'b', event: { type: 'lease-lost', resource: 'r', token: 2 } },
      { t: 21, type: 'request', node: 'c', req: { type: 'acquire', resource: 'r' } },
      { t: 22, type: 'emit', node: 'c', event: { type: 'acquired', resource: 'r', token: 3 } },
      { t: 23, type: 'request', node: 'a', req: { type: 'acquire', resource: 'r' } },
    ]
    const history = lockHistoryFromTrace(entries)
    expect(history.map((o) => [o.client, o.output?.leaseEnd, o.completedAt])).toEqual([
      ['a', 5, 2],
      ['b', 20, 8],
      ['c', Number.POSITIVE_INFINITY, 22],
      ['a', undefined, undefined],
    ])
    expect(checkHistory(lock, history).verdict).toBe('linearizable')
    // Without the lease-lost, b's renewed lease (to 59) overlaps c's grant.
    const kept = lockHistoryFromTrace(entries.filter((e) => e.t !== 20))
    expect(kept[1]!.output!.leaseEnd).toBe(59)
    expect(checkHistory(lock, kept).verdict).toBe('not-linearizable')
  })

  it('reads a composed child by its proto', () => {
    const entries: TraceEvent[] = [
      { t: 0, type: 'request', node: 1, req: { proto: 'lock', req: { type: 'acquire' } } },
      {
        t: 1,
        type: 'emit',
        node: 1,
        event: { proto: 'lock', event: { type: 'acquired', resource: 'default', token: 7 } },
      },
      {
        t: 2,
        type: 'emit',
        node: 1,
        event: { proto: 'other', event: { type: 'acquired', resource: 'default', token: 1 } },
      },
    ]
    expect(lockHistoryFromTrace(entries, { proto: 'lock' }).map((o) => o.output?.token)).toEqual([
      7,
    ])
  })
})
