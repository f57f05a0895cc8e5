import type { NodeId, Random } from '@sd/transport'
import { explore, replay } from '@sd/transport/explore'
import { checkSnapshots, runInSim, type SnapshotInput } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { mutexElectionCheck, mutexElectionNode, mutexElectionScenario } from './mutex-election.js'
import { defaultsAt } from './spec.js'

type Node = ReturnType<ReturnType<typeof mutexElectionNode>>
type NodeMessage = Parameters<Node['onMessage']>[1]
type NodeRequest = Parameters<NonNullable<Node['onRequest']>>[0]
type Heard = { from: NodeId; msg: NodeMessage }

/**
 * What node 1 heard in seeded runs of the spec's setup (1 and 3 ask for the lock, 3 cut off at
 * 100 ms): real election and lock messages, for `checkSnapshots` to feed in random orders.
 */
function heardByNode1(seeds: number): Heard[] {
  const heard: Heard[] = []
  for (let seed = 1; seed <= seeds; seed++) {
    const node = mutexElectionNode('lease')
    runInSim<NodeMessage, NodeRequest, unknown>(
      [1, 2, 3],
      (self) => {
        const p = node(self)
        if (self !== 1) return p
        return {
          ...p,
          onMessage(from, msg, ctx) {
            heard.push({ from, msg })
            p.onMessage(from, msg, ctx)
          },
        }
      },
      {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 6 }, trace: false },
        plan(net, group) {
          group.request(1, { proto: 'lock', req: { type: 'acquire' } }, 70)
          group.request(3, { proto: 'lock', req: { type: 'acquire' } }, 75)
          net.at(100, () => net.partition([3], [1, 2]))
        },
        until: 300,
      },
    )
  }
  return heard
}

describe('mutex-centralized: the stamped composition of lock and election', () => {
  const heard = heardByNode1(4)
  const pick = <T>(random: Random, items: readonly T[]): T =>
    items[random.int(0, items.length - 1)]!
  /** A message node 1 heard, a timer it set, or a lock request. */
  const inputs = (
    random: Random,
    at: { timers: readonly string[] },
  ): SnapshotInput<NodeMessage, NodeRequest> => {
    const roll = random.int(0, 9)
    if (roll === 0) return { kind: 'request', req: { proto: 'lock', req: { type: 'acquire' } } }
    if (roll === 1) return { kind: 'request', req: { proto: 'lock', req: { type: 'release' } } }
    if (roll <= 4 && at.timers.length > 0) return { kind: 'timer', key: pick(random, at.timers) }
    const { from, msg } = pick(random, heard)
    return { kind: 'message', from, msg }
  }

  it('hears both children in the runs it draws messages from', () => {
    const protos = new Set(heard.map((h) => h.msg.proto))
    expect([...protos].sort()).toEqual(['election', 'lock'])
  })

  it('has the composition’s snapshot and restore (both children have them), complete, canonical and restorable over random inputs', () => {
    const node = mutexElectionNode('lease')(1)
    expect(typeof node.snapshot).toBe('function')
    expect(typeof node.restore).toBe('function')
    const report = checkSnapshots(mutexElectionNode('lease'), { seeds: 12, inputs })
    expect(report.states).toBeGreaterThan(100)
    expect(report.comparedPairs).toBeGreaterThan(0)
    expect(report.restored).toBe(report.states)
  })
})

describe('mutex-centralized: its invariant under a stateful search', () => {
  it('judges an entry anew when the explorer cut the event list back and grew it again', () => {
    const scenario = mutexElectionScenario('leader-only')
    const found = explore(scenario, defaultsAt(mutexElectionCheck, 3)).counterexample!
    // The events up to the overlap, as the search saw them.
    let events: Parameters<typeof scenario.invariant>[0]['events'] = []
    const watching: typeof scenario = {
      ...scenario,
      invariant(at) {
        const broken = scenario.invariant(at)
        if (broken !== undefined && events.length === 0) events = [...at.events]
        return broken
      },
    }
    replay(watching, found.schedule)
    expect(events.length).toBeGreaterThan(2)
    const net = replay(scenario, found.schedule).net
    const judge = mutexElectionScenario('leader-only').invariant
    // The entry that broke it: the last `acquired` (the events after it came in the same step).
    const acquired = events.map(
      (e) => 'event' in e.event && e.event.proto === 'lock' && e.event.event.type === 'acquired',
    )
    const entry = acquired.lastIndexOf(true)
    const list: Array<(typeof events)[number]> = []
    for (const e of events.slice(0, entry)) {
      list.push(e)
      expect(judge({ net, events: list })).toBeUndefined()
    }
    // A branch that went further (three more events), then the search went back to the saved state.
    for (let i = 0; i < 3; i++) {
      list.push({ ...events[0]! })
      judge({ net, events: list })
    }
    list.length = entry
    list.push(...events.slice(entry))
    expect(judge({ net, events: list })).toBe(found.message)
  })
})
