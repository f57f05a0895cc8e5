/**
 * The churn of the membership property tests: joiners that start late, a founder that leaves, one
 * that crashes for good and is removed, and partitions, pauses and crash-restarts of the others
 * until HEAL; a node out of the group stops. The run's events of both protocols are returned.
 */
import { createRandom, emitsOf, faultsOf, type NodeId, type SimNetwork } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import type { MajorityEvent } from '../../src/majority/events.js'
import type { MembershipEvent } from '../../src/membership/events.js'
import type { AgreedMembershipSettings } from '../../src/membership/options.js'
import { type ElectionWiring, memberNode, TIMEOUT } from './membership.js'

const MAX_LATENCY = 10
const link = { latency: { kind: 'uniform' as const, min: 1, max: MAX_LATENCY } }
export const IDS: NodeId[] = [1, 2, 3, 4, 5, 6, 7]
/** The founders are the better candidates of the election (higher ids), the joiners the worse. */
export const FOUNDERS: NodeId[] = [3, 4, 5, 6, 7]
export const JOINERS: NodeId[] = [1, 2]
export const HEAL = 8_000
export const UNTIL = HEAL + 20 * TIMEOUT

type Group = { request(id: NodeId, req: unknown): void }
const toMembership = (req: unknown) => ({ proto: 'membership', req })

export interface Plan {
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

export function runChurn(
  seed: number,
  settings: AgreedMembershipSettings,
  wiring: ElectionWiring = 'views',
) {
  let plan: Plan | undefined
  const { net } = runInSim(IDS, memberNode(settings, wiring), {
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
  const election = emitsOf<MajorityEvent>(net.trace, 'election')
  const faults = faultsOf(net.trace)
  return { net, events, election, faults, plan: plan! }
}
