/**
 * One run of the `election.membership.*` benchmark in the simulator: SWIM, the agreed membership
 * and the majority election over its views on every node (the composition of the election
 * README's membership section, as the real-process test runs it), n founders, then a joiner, a
 * graceful leave of a founder that does not lead, and a SIGKILL-like crash of another, one after
 * the other. For each change: how long until every member installed the agreed view that makes
 * it, and, in the same run, how long until every member's SWIM view had it (SWIM alone: the
 * baseline).
 */
import {
  agreedMembership,
  electionToMembership,
  majorityElection,
  membershipToElection,
  swim,
  swimToMembership,
} from '@sd/election'
import { type Ctx, compose, type NodeId, type Protocol, SimNetwork } from '@sd/transport'

export interface MembershipSettings {
  heartbeat: { intervalMs: number; timeoutMs: number }
  swim: { periodMs: number; probeTimeoutMs: number }
  retryMs: number
}

export interface MembershipRunPlan {
  n: number
  seed: number
  loss: number
  settings: MembershipSettings
}

export type Change = 'join' | 'leave' | 'removal'

/** Per change, ms from the cause (start, leave request, crash) until every member had it. */
export interface MembershipRunOutcome {
  agreed: Partial<Record<Change, number>>
  swim: Partial<Record<Change, number>>
  /** A change that did not complete within its window. */
  missed: Change[]
  events: number
}

/** SWIM takes its first group from ctx.peers, which the election needs to hold everyone. */
function startingWith<M, R, E>(peers: readonly NodeId[], p: Protocol<M, R, E>): Protocol<M, R, E> {
  const scoped = Object.create(p) as Protocol<M, R, E>
  scoped.start = (ctx: Ctx<M, E>) =>
    p.start?.call(scoped, Object.create(ctx, { peers: { value: peers } }) as Ctx<M, E>)
  return scoped
}

function memberFactory(founders: NodeId[], s: MembershipSettings) {
  return (self: NodeId) => {
    const joiner = !founders.includes(self)
    return compose(
      {
        election: majorityElection({ heartbeat: s.heartbeat, awaitView: true })(self),
        membership: agreedMembership({ founders, retryMs: s.retryMs })(self),
        swim: startingWith(
          joiner ? [] : founders.filter((id) => id !== self),
          swim({ ...s.swim, ...(joiner ? { seeds: founders } : {}) })(self),
        ),
      },
      {
        wiring: [
          { from: 'election', to: 'membership', map: electionToMembership },
          { from: 'membership', to: 'election', map: membershipToElection },
          { from: 'swim', to: 'membership', map: swimToMembership },
        ],
      },
    )
  }
}

type Emitted = { proto: string; event: { type: string; members?: NodeId[]; leader?: NodeId } }

/** Each change gets this long (virtual ms) before the next starts. */
const WINDOW_MS = 20_000
const SETTLE_MS = 5_000

export function runMembership(plan: MembershipRunPlan): MembershipRunOutcome {
  const founders = Array.from({ length: plan.n }, (_, i) => i + 1)
  const joiner = plan.n + 1
  const net = new SimNetwork({
    seed: `membership/${plan.n}/${plan.loss}/${plan.seed}`,
    latency: { kind: 'uniform', min: 1, max: 5 },
    loss: plan.loss,
    trace: false,
  })
  const agreedView = new Map<NodeId, NodeId[]>()
  const swimView = new Map<NodeId, NodeId[]>()
  let leader: NodeId | undefined
  const onEmit = (node: NodeId, e: Emitted) => {
    if (e.event.type === 'view' && e.proto === 'membership') agreedView.set(node, e.event.members!)
    if (e.event.type === 'view' && e.proto === 'swim') swimView.set(node, e.event.members!)
    if (e.proto === 'election' && e.event.type === 'leader') leader = e.event.leader
  }
  const factory = memberFactory(founders, plan.settings)
  net.addNode(joiner)
  net.launch(founders, factory, { onEmit })

  const outcome: MembershipRunOutcome = { agreed: {}, swim: {}, missed: [], events: 0 }
  type Which = 'agreed' | 'swim'
  /** Runs until the `which` views of every one of `members` hold `members`, or the window ends. */
  const measure = (change: Change, members: NodeId[], which: Which[]) => {
    const from = net.now
    const holds = (views: Map<NodeId, NodeId[]>) =>
      members.every((id) => {
        const v = views.get(id)
        return v !== undefined && v.length === members.length && v.every((m, i) => m === members[i])
      })
    const views = { agreed: agreedView, swim: swimView }
    for (let t = from; t < from + WINDOW_MS; t += 10) {
      net.run({ until: t + 10 })
      for (const w of which) {
        if (outcome[w][change] === undefined && holds(views[w])) outcome[w][change] = net.now - from
      }
      if (which.every((w) => outcome[w][change] !== undefined)) return
    }
    outcome.missed.push(change)
  }

  // A leader among the founders first: the changes are measured from a settled group.
  net.run({ until: SETTLE_MS })
  net.launch([joiner], factory, { onEmit })
  const withJoiner = [...founders, joiner]
  measure('join', withJoiner, ['agreed', 'swim'])
  net.run({ until: net.now + SETTLE_MS })
  // A founder that does not lead leaves, in the order of the README: out of the agreed view
  // first, then SWIM's announcement (measured on its own: the baseline), then it stops.
  const [leaver, victim] = founders.filter((id) => id !== leader)
  const afterLeave = withJoiner.filter((id) => id !== leaver)
  net.request(leaver!, { proto: 'membership', req: { type: 'leave' } })
  measure('leave', afterLeave, ['agreed'])
  net.request(leaver!, { proto: 'swim', req: { type: 'leave' } })
  measure('leave', afterLeave, ['swim'])
  net.run({ until: net.now + SETTLE_MS })
  net.crash(leaver!)
  net.run({ until: net.now + SETTLE_MS })
  // Another one that does not lead crashes: SWIM declares it dead, and the leader removes it.
  net.crash(victim!)
  measure(
    'removal',
    afterLeave.filter((id) => id !== victim),
    ['agreed', 'swim'],
  )
  outcome.events = net.stats.delivered
  return outcome
}
