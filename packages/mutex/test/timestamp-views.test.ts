/**
 * Ricart-Agrawala and Lamport's algorithm through view changes (the contract's `ViewRequest`):
 * a crashed member is dropped by a new view and a joiner is admitted, without two holders.
 */
import { type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkMutualExclusion, type TimedEvent } from '../src/check.js'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/index.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { JOINER, runThroughViews, sendView, type ViewedFactory } from './support/view-runs.js'

const ALGORITHMS: Array<{ name: string; factory: () => ViewedFactory }> = [
  { name: 'ricartAgrawala', factory: () => ricartAgrawala() as ViewedFactory },
  {
    name: 'ricartAgrawala (alwaysAnswer)',
    factory: () => ricartAgrawala({ alwaysAnswer: true }) as ViewedFactory,
  },
  { name: 'lamportMutex', factory: () => lamportMutex() as ViewedFactory },
]

describe.each(ALGORITHMS)('$name through view changes', ({ factory }) => {
  it('a crash, a view without it at every live member at its own time, then a joiner: never two holders, every live acquire served', () => {
    forSeeds(seedList(60), (seed) => {
      const run = runThroughViews(factory(), seed)
      expect(run.violations).toEqual([])
      for (const [node, n] of run.asked) {
        if (node === run.victim) continue
        expect(run.served.get(node) ?? 0, `acquires of ${String(node)} served`).toBe(n)
      }
      expect(run.served.get(JOINER) ?? 0).toBeGreaterThan(0)
    })
  })
})

/** A fixed-latency network running `factory` on `ids`, every event kept. */
function fixedNet(ids: NodeId[], factory: ViewedFactory, extra: NodeId[] = []) {
  const net = new SimNetwork({ seed: 1, latency: 10 })
  const events: TimedEvent<{ type: string; reason?: string; time?: number }>[] = []
  net.onEmit((node, event, t) => events.push({ node, t, event: event as { type: string } }))
  net.launch(ids, factory)
  for (const id of extra) net.addNode(id)
  const acquire = (node: NodeId, at?: number) =>
    net.request<MutexRequest>(node, { type: 'acquire' }, at)
  const judge = () => {
    const crashes = net.trace.flatMap((e) => (e.type === 'crash' ? [{ node: e.node, t: e.t }] : []))
    return checkMutualExclusion(events, crashes)
  }
  const of = (node: NodeId, type: string) =>
    events.filter((e) => e.node === node && e.event.type === type)
  return { net, events, acquire, judge, of }
}

describe.each(ALGORITHMS)('$name: a request in flight across a view change', ({ factory }) => {
  it('sent in view 1 to a node still in view 0: kept there, answered once it installs view 1', () => {
    const { net, acquire, of, judge } = fixedNet(['a', 'b', 'c'], factory())
    net.crash('c')
    sendView(net, 'a', 1, ['a', 'b'], 0)
    acquire('a', 1) // reaches b at 11, still in view 0
    sendView(net, 'b', 1, ['a', 'b'], 20)
    net.run({ until: 1000 })
    expect(of('a', 'requested')).toHaveLength(1)
    const [entry] = of('a', 'acquired')
    // Answered only after b installed view 1 (at 20), one hop later.
    expect(entry?.t).toBeGreaterThanOrEqual(30)
    expect(judge().violations).toEqual([])
  })

  it('sent in view 0, reaching a node already in view 1: dropped, made again (stamped anew) in view 1', () => {
    const { net, acquire, of, judge } = fixedNet(['a', 'b', 'c'], factory())
    net.crash('c')
    acquire('a', 0) // waits for c: never answered in view 0
    sendView(net, 'b', 1, ['a', 'b'], 5)
    sendView(net, 'a', 1, ['a', 'b'], 12)
    net.run({ until: 1000 })
    expect(of('b', 'ignored').map((e) => e.event.reason)).toContain(
      'message of view 0, this node is in view 1',
    )
    const requested = of('a', 'requested').map((e) => e.event.time!)
    expect(requested).toHaveLength(2)
    expect(requested[1]).toBeGreaterThan(requested[0]!)
    expect(of('a', 'acquired')).toHaveLength(1)
    expect(judge().violations).toEqual([])
  })
})

describe.each(ALGORITHMS)('$name: crashed members and the precondition', ({ factory }) => {
  it('without a view change a crashed peer blocks every requester (the old behaviour)', () => {
    const { net, acquire, of } = fixedNet(['a', 'b', 'c'], factory())
    net.crash('c')
    acquire('a', 1)
    acquire('b', 2)
    net.run({ until: 1000 })
    expect([...of('a', 'acquired'), ...of('b', 'acquired')]).toEqual([])
  })

  it('the same with a view without the crashed peer: both enter, one after the other', () => {
    const { net, acquire, of, judge } = fixedNet(['a', 'b', 'c'], factory())
    net.crash('c')
    acquire('a', 1)
    acquire('b', 2)
    sendView(net, 'a', 1, ['a', 'b'], 40)
    sendView(net, 'b', 1, ['a', 'b'], 70)
    net.run({ until: 1000 })
    expect(of('a', 'acquired')).toHaveLength(1)
    expect(of('b', 'acquired')).toHaveLength(0) // nobody released: b still waits for a's OK
    expect(judge().violations).toEqual([])
  })

  it('removing a LIVE holder breaks mutual exclusion (the precondition the membership service keeps)', () => {
    const { net, acquire, of, judge } = fixedNet(['a', 'b', 'c'], factory())
    acquire('a', 0) // a enters and never releases
    sendView(net, 'b', 1, ['b', 'c'], 50)
    sendView(net, 'c', 1, ['b', 'c'], 50)
    acquire('b', 60)
    net.run({ until: 1000 })
    expect(of('a', 'acquired')).toHaveLength(1)
    expect(of('b', 'acquired')).toHaveLength(1)
    expect(judge().violations.length).toBeGreaterThan(0)
  })
})

describe.each(ALGORITHMS)('$name: a joiner', ({ factory }) => {
  it('stamps its first request above every entry before it (it waits to hear from each member), so tokens keep increasing', () => {
    const { net, acquire, of, judge } = fixedNet(['a', 'b'], factory(), ['e'])
    const release = (node: NodeId, at: number) =>
      net.request<MutexRequest>(node, { type: 'release' }, at)
    acquire('a', 0) // enters at 20
    release('a', 30)
    acquire('b', 40) // enters at 60
    release('b', 70)
    net.at(90, () => net.launch(['e'], factory()))
    for (const m of ['a', 'b', 'e']) sendView(net, m, 1, ['a', 'b', 'e'], 90)
    acquire('e', 90) // at once: its clock is still 0
    net.run({ until: 1000 })
    expect(of('b', 'acquired')).toHaveLength(1)
    const [first] = of('e', 'requested').map((e) => e.event.time!)
    const before = [...of('a', 'requested'), ...of('b', 'requested')].map((e) => e.event.time!)
    expect(first).toBeGreaterThan(Math.max(...before))
    expect(of('e', 'acquired')).toHaveLength(1)
    expect(judge().violations).toEqual([])
  })
})
