/**
 * Leadership transfer in the simulator: the leader gives its lease up and tells the target to
 * stand at once; the target leads within about one round trip (no election timeout between), every
 * node follows it, and the global checker finds no two leaders at once. A transfer that cannot
 * happen says why (`transfer-failed`), and the group then elects as after any leader loss.
 */
import { emitsOf, faultsOf, type NodeId, type SimNetwork } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import { type MajorityEvent, majorityElection } from '../src/majority/index.js'

const TIMEOUT = 500
const MAX_LATENCY = 10
const link = { latency: { kind: 'uniform' as const, min: 1, max: MAX_LATENCY } }
const idsOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)
const AT = 2_000

function lastLeader(net: SimNetwork): { leader: NodeId; term: number } {
  const own = ofType(emitsOf<MajorityEvent>(net.trace), 'leader').filter(
    (e) => e.event.leader === e.node,
  )
  const last = own.at(-1)!
  return { leader: last.node, term: last.event.term }
}

describe('majorityElection: leadership transfer', () => {
  it('the target leads within one round trip and a one-way delay, and every node follows it, over seeds', () => {
    let worstGap = 0
    forSeeds(seedList(60), (seed) => {
      const ids = idsOf([3, 4, 5][seed % 3]!)
      let from: { leader: NodeId; term: number } | undefined
      let to: NodeId | undefined
      const { net, events } = runInSim(ids, majorityElection(), {
        seed,
        net: link,
        until: AT + 4 * TIMEOUT,
        plan: (net, group) =>
          net.at(AT, () => {
            from = lastLeader(net)
            const others = ids.filter((id) => id !== from!.leader)
            to = others[seed % others.length]!
            group.request(from.leader, { type: 'transfer', to })
          }),
      })
      const started = ofType(events, 'transfer-started').find((e) => e.node === from!.leader)
      expect(started?.event).toEqual({ type: 'transfer-started', term: from!.term, to })
      const down = ofType(events, 'stepped-down').find((e) => e.node === from!.leader && e.t >= AT)
      expect(down?.event.reason).toBe('transfer')
      const won = ofType(events, 'leader').find((e) => e.t >= AT && e.event.leader === e.node)
      expect(won?.node).toBe(to)
      expect(won!.event.term).toBeGreaterThan(from!.term)
      // The gap without a leader: TIMEOUT-NOW one way, the vote request and its answer. In
      // simulated time (latencies up to MAX_LATENCY): never an election timeout.
      const gap = won!.t - down!.t
      expect(gap).toBeLessThanOrEqual(3 * MAX_LATENCY)
      worstGap = Math.max(worstGap, gap)
      expect(ofType(events, 'transfer-failed')).toEqual([])
      expect(ofType(events, 'pre-candidate').filter((e) => e.t >= AT)).toEqual([])
      const verdict = checkElection(events, faultsOf(net.trace), { members: ids })
      expect(verdict.violations).toEqual([])
      expect(agreedLeader(verdict, ids)).toEqual({ leader: to, term: won!.event.term })
    })
    console.log(`transfer: worst leaderless gap ${worstGap} ms (latency up to ${MAX_LATENCY} ms)`)
  })

  it('refuses what cannot be done: not leader, unknown target, itself, a silent target', () => {
    const ids = idsOf(3)
    let leader: NodeId | undefined
    let follower: NodeId | undefined
    const { events } = runInSim(ids, majorityElection(), {
      seed: 1,
      net: link,
      until: AT + 3 * TIMEOUT,
      plan: (net, group) => {
        net.at(AT, () => {
          leader = lastLeader(net).leader
          follower = ids.find((id) => id !== leader)!
          group.request(follower, { type: 'transfer', to: leader })
          group.request(leader, { type: 'transfer', to: 99 })
          group.request(leader, { type: 'transfer', to: leader })
        })
        net.at(AT + 1, () => net.crash(follower!))
        // Once the crashed follower's acknowledgements are older than the lease window.
        net.at(AT + TIMEOUT, () => group.request(leader!, { type: 'transfer', to: follower! }))
      },
    })
    const failed = ofType(events, 'transfer-failed').map((e) => [e.node, e.event.reason])
    expect(failed).toEqual([
      [follower, 'not-leader'],
      [leader, 'unknown-target'],
      [leader, 'unknown-target'],
      [leader, 'target-silent'],
    ])
    expect(ofType(events, 'transfer-started')).toEqual([])
  })

  it('a target that crashes before it wins: transfer-failed (timeout), then an ordinary election', () => {
    forSeeds(seedList(20), (seed) => {
      const ids = idsOf(5)
      let from: NodeId | undefined
      let to: NodeId | undefined
      const { net, events } = runInSim(ids, majorityElection(), {
        seed,
        net: link,
        until: AT + 8 * TIMEOUT,
        plan: (net, group) =>
          net.at(AT, () => {
            from = lastLeader(net).leader
            to = ids.find((id) => id !== from)!
            group.request(from, { type: 'transfer', to })
            net.crash(to) // before TIMEOUT-NOW arrives
          }),
      })
      const failed = ofType(events, 'transfer-failed')
      expect(failed.map((e) => [e.node, e.event.reason])).toEqual([[from, 'timeout']])
      // The old leader gave its lease up at once, so the deadline is one timeout after that.
      expect(failed[0]!.t).toBe(AT + TIMEOUT)
      const verdict = checkElection(events, faultsOf(net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
      })
      expect(verdict.violations).toEqual([])
      const live = ids.filter((id) => id !== to)
      expect(agreedLeader(verdict, live)).toBeDefined()
    })
  })
})
