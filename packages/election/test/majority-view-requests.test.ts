/**
 * The majority election's view request, one behaviour at a time: the group it counts is the
 * view's, a leader left out steps down, a node out of the view neither stands nor votes, a joiner
 * waits for its view (`awaitView`), older and malformed views change nothing.
 */
import type { NodeId } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { majorityElection } from '../src/majority/index.js'
import type { MajorityOptions } from '../src/majority/options.js'

const link = { latency: { kind: 'uniform' as const, min: 1, max: 10 } }
const heartbeat = { intervalMs: 50, timeoutMs: 250 }
const view = (v: number, members: NodeId[]) => ({ type: 'view' as const, view: v, members })

function run(
  ids: NodeId[],
  plan: Parameters<typeof runInSim>[2]['plan'],
  options: MajorityOptions = {},
  until = 4_000,
) {
  return runInSim(ids, majorityElection({ heartbeat, ...options }), {
    seed: 7,
    net: link,
    until,
    plan,
  })
}

const leadersOf = (events: ReturnType<typeof run>['events']) =>
  ofType(events, 'leader').filter((e) => e.event.leader === e.node)

describe('majority election: view requests', () => {
  it('counts a majority of the view: two of a view of three elect while three of five peers are down', () => {
    const ids = [1, 2, 3, 4, 5]
    const { events } = run(ids, (net, group) => {
      for (const id of ids) group.request(id, view(1, [1, 2, 3]))
      for (const id of [3, 4, 5]) net.crash(id)
    })
    expect(leadersOf(events).map((e) => e.node)).toEqual([2])
  })

  it('without the view, the same two of five peers elect nobody', () => {
    const { events } = run([1, 2, 3, 4, 5], (net) => {
      for (const id of [3, 4, 5]) net.crash(id)
    })
    expect(leadersOf(events)).toEqual([])
  })

  it('a leader left out of the view steps down; it neither stands nor votes after', () => {
    const ids = [1, 2, 3, 4, 5]
    const { events } = run(ids, (net, group) => {
      net.at(1_000, () => {
        for (const id of ids) group.request(id, view(2, [1, 2, 3, 4]))
      })
    })
    const down = ofType(events, 'stepped-down')
    expect(down.map((e) => [e.node, e.event.reason])).toEqual([[5, 'not-in-view']])
    const after = leadersOf(events).filter((e) => e.t > 1_000)
    expect(after.map((e) => e.node)).toEqual([4])
    expect(ofType(events, 'voted').filter((e) => e.node === 5 && e.t > 1_000)).toEqual([])
    expect(ofType(events, 'pre-candidate').filter((e) => e.node === 5 && e.t > 1_000)).toEqual([])
    const refused = ofType(events, 'ignored').filter((e) => e.node === 5 && e.t > 1_000)
    expect(refused.map((e) => e.event.reason)).toContain('pre-vote: not in the view')
    // It follows the leader of the view all the same.
    expect(
      ofType(events, 'leader')
        .filter((e) => e.node === 5)
        .at(-1)?.event.leader,
    ).toBe(4)
  })

  it('awaitView: nobody stands before a view names it; then only the members lead', () => {
    const ids = [1, 2, 3]
    const { events } = run(
      ids,
      (net, group) => {
        net.at(2_000, () => {
          for (const id of ids) group.request(id, view(1, [1, 2]))
        })
      },
      { awaitView: true },
    )
    expect(ofType(events, 'pre-candidate').filter((e) => e.t < 2_000)).toEqual([])
    expect(leadersOf(events).map((e) => e.node)).toEqual([2])
  })

  it('an older or repeated view changes nothing; a malformed one is refused', () => {
    const ids = [1, 2, 3]
    const { events } = run(ids, (net, group) => {
      for (const id of ids) group.request(id, view(3, [1, 2, 3]))
      net.at(1_000, () => {
        for (const id of ids) group.request(id, view(2, [1, 2]))
        for (const id of ids) group.request(id, view(3, [1, 2]))
        // A member that is no node id (an id the runtime never listed is a peer learnt of: see
        // majority-deployment.test.ts).
        group.request(1, { type: 'view', view: 4, members: [1, { id: 9 }] } as never)
        group.request(1, { type: 'view', view: -1, members: [1] })
      })
    })
    expect(ofType(events, 'stepped-down')).toEqual([])
    expect(leadersOf(events).map((e) => e.node)).toEqual([3])
    const refused = ofType(events, 'ignored').filter((e) => e.event.reason.startsWith('malformed'))
    expect(refused.map((e) => e.node)).toEqual([1, 1])
  })
})
