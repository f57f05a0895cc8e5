/**
 * The election's safeguards, each shown to matter: PreVote (a node rejoining after a partition
 * starts no election; without it, it does spend terms), CheckQuorum (the lease: a leader cut off
 * from the majority steps down within it), randomized candidacy delays (split votes resolve in few
 * terms), and safety over many seeds of crashes, pauses and partitions, judged across all nodes.
 */
import { createRandom, emitsOf, faultsOf, type NodeId, type SimNetwork } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import type { ElectionRequest } from '../src/contract.js'
import { type MajorityEvent, majorityElection } from '../src/majority/index.js'

const INTERVAL = 100
const TIMEOUT = 500
const MAX_LATENCY = 10
const link = { latency: { kind: 'uniform' as const, min: 1, max: MAX_LATENCY } }
const idsOf = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

/** The node that announced itself leader last in `net`'s trace so far, with its term. */
function lastLeader(net: SimNetwork): { leader: NodeId; term: number } {
  const own = ofType(emitsOf<MajorityEvent>(net.trace), 'leader').filter(
    (e) => e.event.leader === e.node,
  )
  const last = own.at(-1)!
  return { leader: last.node, term: last.event.term }
}

/**
 * Crashes, restarts, pauses, resumes, partitions and heals at random until `healAt`, and
 * leadership transfers asked of every node (only a leader's starts one) in between.
 */
function planFaults(
  net: SimNetwork,
  group: { request(id: NodeId, req: ElectionRequest): void },
  ids: readonly NodeId[],
  seed: number,
  healAt: number,
) {
  const rnd = createRandom(`majority-safeguards/${seed}`)
  const pick = <T>(list: readonly T[]): T | undefined =>
    list.length === 0 ? undefined : list[rnd.int(0, list.length - 1)]
  const paused = new Set<NodeId>()
  for (let t = 1500 + rnd.int(0, 400); t < healAt; t += rnd.int(100, 900)) {
    net.at(t, () => {
      const r = rnd.next()
      const up = ids.filter((id) => !net.isCrashed(id) && !paused.has(id))
      if (r < 0.1) {
        const to = pick(ids)!
        for (const id of ids) if (!net.isCrashed(id)) group.request(id, { type: 'transfer', to })
      } else if (r < 0.35) {
        const side = ids.filter(() => rnd.next() < 0.5)
        net.partition(
          side,
          ids.filter((id) => !side.includes(id)),
        )
      } else if (r < 0.45) net.heal()
      else if (r < 0.6) {
        const id = pick(up)
        if (id !== undefined) net.crash(id)
      } else if (r < 0.75) {
        const id = pick(ids.filter((id) => net.isCrashed(id)))
        if (id !== undefined) net.restart(id)
      } else if (r < 0.88) {
        const id = pick(up)
        if (id !== undefined) {
          net.pause(id)
          paused.add(id)
        }
      } else {
        const id = pick([...paused])
        if (id !== undefined && !net.isCrashed(id)) net.resume(id)
        if (id !== undefined) paused.delete(id)
      }
    })
  }
  net.at(healAt, () => {
    net.heal()
    for (const id of ids) {
      if (paused.has(id) && !net.isCrashed(id)) net.resume(id)
      if (net.isCrashed(id)) net.restart(id)
    }
    paused.clear()
  })
}

describe('majorityElection safeguards', () => {
  it('over many seeds of crashes, pauses and partitions: one leader per term, none on a minority side', () => {
    const HEAL = 12_000
    const UNTIL = HEAL + 6 * TIMEOUT
    let faults = 0
    let leaseStepDowns = 0
    let transfers = 0
    forSeeds(seedList(60), (seed) => {
      const ids = idsOf([3, 4, 5][seed % 3]!)
      const { net, events } = runInSim(ids, majorityElection(), {
        seed,
        net: link,
        until: UNTIL,
        plan: (net, group) => planFaults(net, group, ids, seed, HEAL),
      })
      const verdict = checkElection(events, faultsOf(net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
        end: UNTIL,
      })
      expect(verdict.violations).toEqual([])
      // Once the network is sound again, every node follows one leader.
      expect(agreedLeader(verdict, ids)).toBeDefined()
      faults += faultsOf(net.trace).length
      transfers += ofType(events, 'transfer-started').length
      leaseStepDowns += ofType(events, 'stepped-down').filter(
        (e) => e.event.reason === 'lease',
      ).length
    })
    // The faults happened, and cut leaders off (the minority rule was exercised).
    expect(faults).toBeGreaterThan(300)
    expect(leaseStepDowns).toBeGreaterThan(10)
    expect(transfers).toBeGreaterThan(20)
  })

  /** A follower cut off alone for 6 timeouts, then healed; what the others saw. */
  const rejoin = (seed: number, preVote: boolean) => {
    const ids = idsOf(5)
    let cut: { leader: NodeId; term: number; lonely: NodeId } | undefined
    const { net, events } = runInSim(ids, majorityElection({ preVote }), {
      seed,
      net: link,
      until: 9_000,
      plan: (net) => {
        net.at(2_000, () => {
          const leader = lastLeader(net)
          const lonely = ids.find((id) => id !== leader.leader)!
          cut = { ...leader, lonely }
          net.partition(
            [lonely],
            ids.filter((id) => id !== lonely),
          )
        })
        net.at(5_000, () => net.heal())
      },
    })
    const after = (e: { t: number }) => e.t >= 2_000
    const candidacies = ofType(events, 'candidate').filter(after)
    const leaders = ofType(events, 'leader').filter((e) => after(e) && e.event.leader === e.node)
    // The term it keeps in stable storage (`term`: what a candidacy spends).
    const stored = Number(net.storageOf(cut!.lonely).term ?? 0)
    return { cut: cut!, candidacies, leaders, stored, events }
  }

  it('PreVote: a node rejoining after a partition causes no election and no new term (and without PreVote it spends terms)', () => {
    let inflated = 0
    let deposed = 0
    forSeeds(seedList(20), (seed) => {
      const withPre = rejoin(seed, true)
      // Nobody stood, nobody new led, the lonely node's term did not move, and at the end every
      // node follows the leader of before the cut, in the same term.
      expect(withPre.candidacies).toEqual([])
      expect(withPre.leaders).toEqual([])
      expect(withPre.stored).toBe(withPre.cut.term)
      const verdict = checkElection(withPre.events)
      expect(agreedLeader(verdict, idsOf(5))).toEqual({
        leader: withPre.cut.leader,
        term: withPre.cut.term,
      })
      // The same run without PreVote: the cut-off node stands again and again, in new terms.
      const without = rejoin(seed, false)
      expect(without.candidacies.length).toBeGreaterThan(0)
      expect(without.stored).toBeGreaterThan(without.cut.term)
      inflated += without.stored - without.cut.term
      if (without.leaders.length > 0) deposed++
    })
    expect(inflated).toBeGreaterThanOrEqual(seedList(20).length)
    console.log(
      `without PreVote: ${inflated} terms spent by the cut-off nodes in ${seedList(20).length} seeds, ${deposed} leaders deposed`,
    )
  })

  it('CheckQuorum: a leader cut off from the majority steps down within its lease', () => {
    const LEASE = TIMEOUT - INTERVAL
    forSeeds(seedList(30), (seed) => {
      const ids = idsOf([3, 5, 7][seed % 3]!)
      const CUT = 2_000 + (seed % 7) * 13
      let leader: NodeId | undefined
      const { net, events } = runInSim(ids, majorityElection(), {
        seed,
        net: link,
        until: CUT + 4 * TIMEOUT,
        plan: (net) =>
          net.at(CUT, () => {
            leader = lastLeader(net).leader
            // The leader keeps a minority with it: fewer than half the others.
            const others = ids.filter((id) => id !== leader)
            const kept = others.slice(0, Math.floor(ids.length / 2) - 1)
            net.partition(
              [leader!, ...kept],
              others.filter((id) => !kept.includes(id)),
            )
          }),
      })
      const down = ofType(events, 'stepped-down').find((e) => e.node === leader && e.t >= CUT)
      expect(down?.event.reason).toBe('lease')
      // The lease counts from a heartbeat sent before the cut: it ends within LEASE of it.
      expect(down!.t - CUT).toBeLessThanOrEqual(LEASE)
      // And the majority side elected a successor after that (never two leaders at once).
      const verdict = checkElection(events, faultsOf(net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
      })
      expect(verdict.violations).toEqual([])
      const next = ofType(events, 'leader').find((e) => e.t > CUT && e.event.leader === e.node)
      expect(next).toBeDefined()
      expect(next!.t).toBeGreaterThan(down!.t)
    })
  })

  it('randomized candidacy delays: after the leader of four crashes, split votes resolve in few terms', () => {
    const terms: number[] = []
    forSeeds(seedList(100), (seed) => {
      const ids = idsOf(4)
      let before: { leader: NodeId; term: number } | undefined
      // Latencies up to a slot of the candidacy window (timeoutMs / 4): candidates do collide.
      const slow = { latency: { kind: 'uniform' as const, min: 1, max: TIMEOUT / 4 } }
      const { events } = runInSim(ids, majorityElection(), {
        seed,
        net: slow,
        until: 3_000 + 20 * TIMEOUT,
        plan: (net) =>
          net.at(3_000, () => {
            before = lastLeader(net)
            net.crash(before.leader)
          }),
      })
      const next = ofType(events, 'leader').find((e) => e.t > 3_000 && e.event.leader === e.node)
      expect(next).toBeDefined()
      terms.push(next!.event.term - before!.term)
    })
    terms.sort((a, b) => a - b)
    const median = terms[Math.floor(terms.length / 2)]!
    // Counted in terms, not time: usually the first candidacy wins, never a long 2-2 series.
    expect(median).toBeLessThanOrEqual(1)
    expect(terms.at(-1)!).toBeLessThanOrEqual(4)
    console.log(`split votes: terms to a new leader, median ${median}, worst ${terms.at(-1)}`)
  })
})
