/**
 * `centralized()` through view changes (the contract's `ViewRequest`): the coordinator crashes,
 * a new one is named and a view without the crashed node reaches each live member at its own
 * time, then a joiner is admitted by a later view. A recovering coordinator waits for its view's
 * members only, so a crashed member no longer holds it until the lease timeout.
 */
import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { CentralizedEvent } from '../src/centralized/events.js'
import { type CentralizedOptions, centralized } from '../src/centralized/index.js'
import type { CentralizedRequest } from '../src/centralized/requests.js'
import { checkMutualExclusion, type TimedEvent } from '../src/check.js'
import type { MutexRequest } from '../src/contract.js'
import { JITTER } from './support/harness.js'

const MEMBERS: NodeId[] = ['a', 'b', 'c', 'd']
const JOINER: NodeId = 'e'
const LEASED: CentralizedOptions = { leaseMs: 200, renewEveryMs: 50, maxDelayMs: 100 }

type Acquire = Omit<Extract<MutexRequest, { type: 'acquire' }>, 'type'>
/** How the run's acquires ask: exclusive ones, readers beside writers, or permits of 3. */
const WORKLOADS: Record<string, (pick: (n: number) => number) => Acquire> = {
  exclusive: () => ({}),
  shared: (pick) => (pick(3) === 0 ? {} : { mode: 'shared' }),
  permits: (pick) => ({ permits: { take: 1 + pick(2), of: 3 } }),
}

interface Run {
  events: TimedEvent<CentralizedEvent>[]
  violations: string[]
  asked: Map<NodeId, number>
  served: Map<NodeId, number>
  coordinator: NodeId
}

function runThroughViews(options: CentralizedOptions, workload: string, seed: number): Run {
  const random = createRandom(seed)
  const pick = (n: number) => Math.floor(random.next() * n)
  const net = new SimNetwork({ seed, ...JITTER })
  const events: TimedEvent<CentralizedEvent>[] = []
  const asked = new Map<NodeId, number>()
  const served = new Map<NodeId, number>()
  const factory = centralized(options) // coordinator: 'a', the lowest id
  const request = (node: NodeId, req: CentralizedRequest, at?: number) =>
    net.request<CentralizedRequest>(node, req, at)
  const onEmit = (node: NodeId, event: CentralizedEvent, t: number) => {
    events.push({ node, t, event })
    if (event.type !== 'acquired') return
    served.set(node, (served.get(node) ?? 0) + 1)
    request(node, { type: 'release' }, t + 1 + pick(100)) // long enough to span a change
  }
  net.launch(MEMBERS, factory, { onEmit })
  net.addNode(JOINER) // known to the network from the start; its protocol runs from joinAt

  const ask = (node: NodeId, at: number) =>
    net.at(at, () => {
      if (net.isCrashed(node)) return
      asked.set(node, (asked.get(node) ?? 0) + 1)
      request(node, { type: 'acquire', ...WORKLOADS[workload]!(pick) })
    })
  for (let i = 0; i < 24; i++) ask(MEMBERS[pick(MEMBERS.length)]!, pick(500))

  // The coordinator crashes; a new one is named and a view without 'a' installed, each reaching
  // every live member at its own time, in either order.
  const alive = MEMBERS.filter((m) => m !== 'a')
  const coordinator = alive[pick(alive.length)]!
  const changeAt = 50 + pick(100)
  net.at(changeAt, () => net.crash('a'))
  for (const m of alive) {
    request(m, { type: 'coordinator', id: coordinator, term: 1 }, changeAt + 1 + pick(60))
    request(m, { type: 'view', view: 1, members: alive }, changeAt + 1 + pick(60))
  }

  // A joiner: launched alone, then given view 2 (and told the coordinator once it is a member).
  const joinAt = 250 + pick(50)
  net.at(joinAt, () => net.launch([JOINER], factory, { onEmit }))
  const withJoiner = [...alive, JOINER]
  for (const m of withJoiner) {
    const at = joinAt + 1 + pick(40)
    request(m, { type: 'view', view: 2, members: withJoiner }, at)
    if (m === JOINER) request(m, { type: 'coordinator', id: coordinator, term: 1 }, at + 1)
  }
  for (let i = 0; i < 4; i++) ask(JOINER, joinAt + 50 + pick(200))
  net.run({ until: 5000 })

  const faults = net.trace.flatMap((e) => (e.type === 'crash' ? [{ node: e.node, t: e.t }] : []))
  const { violations } = checkMutualExclusion(events, faults)
  return { events, violations, asked, served, coordinator }
}

describe('centralized() through view changes', () => {
  describe.each([
    { name: 'without leases', options: {} },
    { name: 'with leases', options: LEASED },
  ])('$name', ({ options }) => {
    it.each(Object.keys(WORKLOADS))(
      '%s acquires: the coordinator crashes, a new one and a view without it at each live member at its own time, then a joiner: never two holders, every acquire of the final view served',
      (workload) => {
        forSeeds(seedList(40), (seed) => {
          const run = runThroughViews(options, workload, seed)
          expect(run.violations).toEqual([])
          for (const [node, n] of run.asked) {
            if (node === 'a') continue
            expect(run.served.get(node) ?? 0, `acquires of ${String(node)} served`).toBe(n)
          }
          expect(run.served.get(JOINER) ?? 0).toBeGreaterThan(0)
          // The new coordinator recovered without the crashed node's report.
          const recovered = run.events.filter(
            (e) => e.node === run.coordinator && e.event.type === 'recovered',
          )
          expect(recovered.length).toBeGreaterThan(0)
        })
      },
    )
  })
})

/** Fixed latency: 'a' (the coordinator) crashes at 10, 'b' is named at 20, 'c' asks at 30. */
function recoveryAfterCrash(options: CentralizedOptions, withView: boolean) {
  const net = new SimNetwork({ seed: 1, latency: 10 })
  const events: TimedEvent<CentralizedEvent>[] = []
  const group = net.launch(MEMBERS, centralized(options), {
    onEmit: (node, event, t) => events.push({ node, t, event }),
  })
  net.at(10, () => net.crash('a'))
  for (const m of ['b', 'c', 'd']) {
    if (withView) group.request(m, { type: 'view', view: 1, members: ['b', 'c', 'd'] }, 20)
    group.request(m, { type: 'coordinator', id: 'b', term: 1 }, 20)
  }
  group.request('c', { type: 'acquire' }, 30)
  net.run({ until: 5000 })
  const at = (node: NodeId, type: CentralizedEvent['type']) =>
    events.find((e) => e.node === node && e.event.type === type)?.t
  return { recoveredAt: at('b', 'recovered'), acquiredAt: at('c', 'acquired') }
}

describe('centralized(): recovery after a coordinator crash', () => {
  const wait = LEASED.leaseMs! + LEASED.maxDelayMs!

  it('with leases and no view: waits for the crashed member until leaseMs + maxDelayMs; with the view: as soon as the members reported', () => {
    const without = recoveryAfterCrash(LEASED, false)
    expect(without.recoveredAt).toBe(20 + wait) // the recovery timer, armed at the change
    expect(without.acquiredAt).toBeGreaterThanOrEqual(20 + wait)
    const viewed = recoveryAfterCrash(LEASED, true)
    // RECOVER out at 20, the SYNCs back at 40: one round trip, not the lease timeout.
    expect(viewed.recoveredAt).toBe(40)
    expect(viewed.acquiredAt).toBeLessThan(20 + wait)
  })

  it('without leases and no view: never recovers (the crashed member never reports); with the view it does', () => {
    const without = recoveryAfterCrash({}, false)
    expect(without.recoveredAt).toBeUndefined()
    expect(without.acquiredAt).toBeUndefined()
    const viewed = recoveryAfterCrash({}, true)
    expect(viewed.recoveredAt).toBe(40)
    expect(viewed.acquiredAt).toBeDefined()
  })
})

describe('centralized(): nodes a view leaves out', () => {
  function fixed(options: CentralizedOptions) {
    const net = new SimNetwork({ seed: 1, latency: 10 })
    const events: TimedEvent<CentralizedEvent>[] = []
    const group = net.launch(MEMBERS, centralized(options), {
      onEmit: (node, event, t) => events.push({ node, t, event }),
    })
    const of = (node: NodeId, type: CentralizedEvent['type']) =>
      events.filter((e) => e.node === node && e.event.type === type)
    return { net, group, events, of }
  }

  it('without leases, a crashed holder left out is released at the coordinator (left-out) and the next request granted', () => {
    const { net, group, events, of } = fixed({})
    group.request('d', { type: 'acquire' }, 0)
    net.at(30, () => net.crash('d')) // holds from 20 on, for good
    group.request('c', { type: 'acquire' }, 40)
    net.run({ until: 200 })
    expect(of('c', 'acquired')).toEqual([]) // stuck behind the crashed holder
    for (const m of ['a', 'b', 'c']) {
      group.request(m, { type: 'view', view: 1, members: ['a', 'b', 'c'] }, 200)
    }
    net.run({ until: 400 })
    expect(of('a', 'left-out').map((e) => e.event)).toEqual([
      { type: 'left-out', resource: 'default', node: 'd', token: 1 },
    ])
    expect(of('c', 'acquired').map((e) => e.t)).toEqual([210]) // the GRANT leaves at 200
    const crashes = [{ node: 'd' as NodeId, t: 30 }]
    expect(checkMutualExclusion(events, crashes).violations).toEqual([])
  })

  it('with leases, the left-out holder is not released: its lease runs out', () => {
    const { net, group, of } = fixed(LEASED)
    group.request('d', { type: 'acquire' }, 0)
    net.at(30, () => net.crash('d'))
    group.request('c', { type: 'acquire' }, 40)
    for (const m of ['a', 'b', 'c']) {
      group.request(m, { type: 'view', view: 1, members: ['a', 'b', 'c'] }, 50)
    }
    net.run({ until: 1000 })
    expect(of('a', 'left-out')).toEqual([])
    expect(of('a', 'lease-expired').map((e) => 'node' in e.event && e.event.node)).toEqual(['d'])
    expect(of('c', 'acquired')).toHaveLength(1)
  })

  it('a node left out refuses acquires and drops the ones that wait (not-in-view)', () => {
    const { net, group, of } = fixed({})
    group.request('a', { type: 'acquire' }, 0) // 'a' coordinates: holds from 0
    group.request('d', { type: 'acquire' }, 0) // waits behind it
    group.request('d', { type: 'acquire', resource: 'x' }, 0)
    group.request('d', { type: 'view', view: 1, members: ['a', 'b', 'c'] }, 5) // before x's GRANT
    group.request('d', { type: 'acquire' }, 30)
    net.run({ until: 100 })
    expect(of('d', 'not-in-view').map((e) => [e.t, e.event])).toEqual([
      [5, { type: 'not-in-view', resource: 'default', view: 1 }],
      [5, { type: 'not-in-view', resource: 'x', view: 1 }],
      [30, { type: 'not-in-view', resource: 'default', view: 1 }],
    ])
    expect(of('d', 'acquired')).toEqual([]) // x's GRANT, come at 20, is given back
    expect(of('d', 'ignored').map((e) => 'reason' in e.event && e.event.reason)).toContain(
      'unexpected grant of x',
    )
  })
})

describe('centralized(): a steal whose victim is left out', () => {
  it('without leases, the crashed victim never acknowledges: the view releases it and the stealer is granted', () => {
    const net = new SimNetwork({ seed: 1, latency: 10 })
    const events: TimedEvent<CentralizedEvent>[] = []
    const group = net.launch(MEMBERS, centralized(), {
      onEmit: (node, event, t) => events.push({ node, t, event }),
    })
    group.request('d', { type: 'acquire' }, 0) // holds from 20
    net.at(25, () => net.crash('d'))
    group.request('c', { type: 'acquire', steal: true }, 30) // 'd' is told at 40: crashed
    net.run({ until: 300 })
    const acquired = () => events.filter((e) => e.node === 'c' && e.event.type === 'acquired')
    expect(acquired()).toEqual([])
    for (const m of ['a', 'b', 'c']) {
      group.request(m, { type: 'view', view: 1, members: ['a', 'b', 'c'] }, 300)
    }
    net.run({ until: 600 })
    expect(acquired().map((e) => e.t)).toEqual([310])
    expect(checkMutualExclusion(events, [{ node: 'd', t: 25 }]).violations).toEqual([])
  })
})
