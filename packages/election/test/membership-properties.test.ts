/**
 * The agreed membership over many seeds of joins, graceful leaves, removals of dead members,
 * crashes, pauses and partitions, judged across all nodes from the `view` events: views totally
 * ordered, each acknowledged by a majority of the view before it, none committed on a minority
 * side; after the churn stops, every live member in every live member's view and the departed in
 * nobody's. A variant that commits on its own acknowledgement alone must fail.
 */
import { createRandom, emitsOf, faultsOf, type NodeId, type SimNetwork } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkViews } from '../src/membership/check.js'
import type { MembershipEvent } from '../src/membership/events.js'
import { type AgreedMembershipSettings, resolveOptions } from '../src/membership/options.js'
import { memberNode, TIMEOUT } from './support/membership.js'

const MAX_LATENCY = 10
const link = { latency: { kind: 'uniform' as const, min: 1, max: MAX_LATENCY } }
const IDS: NodeId[] = [1, 2, 3, 4, 5, 6, 7]
/** The founders are the better candidates of the election (higher ids), the joiners the worse. */
const FOUNDERS: NodeId[] = [3, 4, 5, 6, 7]
const JOINERS: NodeId[] = [1, 2]
const HEAL = 8_000
const UNTIL = HEAL + 20 * TIMEOUT

type Group = { request(id: NodeId, req: unknown): void }
const toMembership = (req: unknown) => ({ proto: 'membership', req })

interface Plan {
  leaver: NodeId
  dead: NodeId
  /** Nodes stopped for good: the dead one, and the leaver once it is out. */
  stopped: Set<NodeId>
}

/**
 * Joiners start late (crashed at 0, started at random), one founder leaves and stops once out, one
 * crashes for good and is removed (every running member asks, as each one's detector would), and
 * partitions, pauses and crash-restarts of the others come and go until HEAL.
 */
function planChurn(net: SimNetwork, group: Group, seed: number): Plan {
  const rnd = createRandom(`membership/${seed}`)
  const pick = <T>(list: readonly T[]): T | undefined =>
    list.length === 0 ? undefined : list[rnd.int(0, list.length - 1)]
  const [leaver, dead] = [pick(FOUNDERS)!, pick(FOUNDERS)!]
  const plan: Plan = {
    leaver,
    dead: dead === leaver ? (leaver === 3 ? 4 : 3) : dead,
    stopped: new Set(),
  }
  for (const id of JOINERS) {
    net.crash(id)
    net.at(rnd.int(200, HEAL - 2000), () => net.restart(id))
  }
  // The leaver asks once it runs, and again after a crash made it forget (as its user would).
  for (let t = rnd.int(500, HEAL - 2000); t < UNTIL - 10 * TIMEOUT; t += 1000) {
    net.at(t, () => {
      if (!plan.stopped.has(leaver) && !net.isCrashed(leaver)) {
        group.request(leaver, toMembership({ type: 'leave' }))
      }
    })
  }
  net.at(rnd.int(500, HEAL - 3000), () => {
    net.crash(plan.dead)
    plan.stopped.add(plan.dead)
    net.at(net.now + 2 * TIMEOUT, () => {
      for (const id of IDS) {
        if (!net.isCrashed(id)) group.request(id, toMembership({ type: 'remove', id: plan.dead }))
      }
    })
  })
  const paused = new Set<NodeId>()
  const others = () => IDS.filter((id) => !plan.stopped.has(id))
  for (let t = 300 + rnd.int(0, 300); t < HEAL; t += rnd.int(150, 700)) {
    net.at(t, () => {
      const r = rnd.next()
      const up = others().filter((id) => !net.isCrashed(id) && !paused.has(id))
      if (r < 0.3) {
        const side = IDS.filter(() => rnd.next() < 0.5)
        net.partition(
          side,
          IDS.filter((id) => !side.includes(id)),
        )
      } else if (r < 0.5) net.heal()
      else if (r < 0.6) {
        const id = pick(up.filter((id) => !JOINERS.includes(id)))
        if (id !== undefined) {
          net.crash(id)
          net.at(net.now + rnd.int(100, 1500), () => {
            if (!plan.stopped.has(id) && net.isCrashed(id)) net.restart(id)
          })
        }
      } else if (r < 0.8) {
        const id = pick(up)
        if (id !== undefined) {
          net.pause(id)
          paused.add(id)
          net.at(net.now + rnd.int(50, 2 * TIMEOUT), () => {
            if (paused.delete(id) && !net.isCrashed(id)) net.resume(id)
          })
        }
      }
    })
  }
  net.at(HEAL, () => {
    net.heal()
    for (const id of paused) if (!net.isCrashed(id)) net.resume(id)
    paused.clear()
    for (const id of IDS) if (net.isCrashed(id) && !plan.stopped.has(id)) net.restart(id)
  })
  return plan
}

function run(seed: number, settings: AgreedMembershipSettings) {
  let plan: Plan | undefined
  const { net } = runInSim(IDS, memberNode(settings), {
    seed,
    net: link,
    until: UNTIL,
    plan: (net, group) => {
      plan = planChurn(net, group, seed)
      // A node out of the group stops (it is gone: nobody waits for it).
      net.onEmit((node, event) => {
        const e = event as { proto?: string; event?: MembershipEvent }
        if (e.proto === 'membership' && e.event?.type === 'left') {
          plan!.stopped.add(node)
          net.at(net.now, () => {
            if (!net.isCrashed(node)) net.crash(node)
          })
        }
      })
    },
  })
  const events = emitsOf<MembershipEvent>(net.trace, 'membership')
  const faults = faultsOf(net.trace)
  return { net, events, faults, plan: plan! }
}

describe('agreed membership', () => {
  it('over many seeds of churn and faults: views agreed, majority-acknowledged, and converged', () => {
    const settings = resolveOptions({ founders: FOUNDERS, retryMs: 100 })
    let commits = 0
    let partitions = 0
    let removals = 0
    let underPartition = 0
    forSeeds(seedList(40), (seed) => {
      const { net, events, faults, plan } = run(seed, settings)
      const verdict = checkViews(events, { faults })
      expect(verdict.violations).toEqual([])
      // After the churn: every live node (the joiners included) in every live node's view, the
      // leaver and the dead member in nobody's.
      const live = IDS.filter((id) => !plan.stopped.has(id) && !net.isCrashed(id))
      expect({ live, left: plan.leaver }).toEqual({
        live: live.filter((id) => id !== plan.leaver),
        left: plan.leaver,
      })
      expect(live.length).toBe(5)
      for (const id of live) {
        expect({ node: id, members: verdict.last.get(id)?.members }).toEqual({
          node: id,
          members: live,
        })
      }
      expect(plan.stopped).toContain(plan.leaver)
      expect(events.some((e) => e.node === plan.leaver && e.event.type === 'left')).toBe(true)
      const committed = events.filter((e) => e.event.type === 'committed')
      commits += committed.length
      partitions += faults.filter((f) => f.type === 'partition').length
      underPartition += committed.filter((c) => {
        const cut = faults
          .filter((f) => (f.type === 'partition' || f.type === 'heal') && f.t <= c.t)
          .at(-1)
        return cut?.type === 'partition'
      }).length
      removals += events.filter(
        (e) => e.event.type === 'view' && e.event.left.includes(plan.dead),
      ).length
    })
    // The churn happened: joins, a leave and a removal per seed, under partitions.
    expect(commits).toBeGreaterThan(seedList(40).length * 3)
    expect(partitions).toBeGreaterThan(seedList(40).length * 2)
    expect(removals).toBeGreaterThan(0)
    // Some views were committed while a partition held (on the majority side).
    expect(underPartition).toBeGreaterThan(0)
  })

  it('a variant that commits before a majority acknowledged fails the check', () => {
    const broken = { ...resolveOptions({ founders: FOUNDERS, retryMs: 100 }), quorum: () => 1 }
    const kinds = new Set<string>()
    let firstFailing: number | undefined
    for (const seed of seedList(10)) {
      const { events, faults } = run(seed, broken)
      const verdict = checkViews(events, { faults })
      for (const v of verdict.violations) kinds.add(v.kind)
      if (!verdict.ok) firstFailing ??= seed
    }
    // The seed that shows it (replay with SD_SEEDS=<seed> to see the violations).
    expect(firstFailing, 'no seed failed').toBeDefined()
    expect([...kinds], `first failing seed ${firstFailing}`).toContain('unacknowledged')
    expect([...kinds]).toContain('minority-commit')
  })
})
