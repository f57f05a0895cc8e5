/** Check spec for the election package: Chang-Roberts on a ring, every member an initiator. */
import { type ChangRobertsEvent, changRoberts } from '@sd/election'
import type { NodeId, TimedEvent } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { oneAgreedLeader } from './goals.js'
import type { CheckSpec } from './spec.js'

/** Heartbeats and the election timeout are this long: no timer is due within UNTIL_MS. */
const QUIET_MS = 10_000
const UNTIL_MS = 1_000

/** The ring for n members: ids 1..n placed so that ids neither only rise nor only fall. */
function ringOf(n: number): NodeId[] {
  const ids = Array.from({ length: n }, (_, i): NodeId => i + 1)
  // 2, 1, 3 / 2, 4, 1, 3 / 2, 4, 1, 3, 5: along the ring some ids go up, some down.
  return [...ids.filter((id) => Number(id) % 2 === 0), ...ids.filter((id) => Number(id) % 2 === 1)]
}

const leaders = (events: ReadonlyArray<TimedEvent<ChangRobertsEvent>>, node: NodeId) =>
  events.flatMap((e) => (e.node === node && e.event.type === 'leader' ? [e.event] : []))

export const changRobertsCheck: CheckSpec = {
  scenario: 'election-chang-roberts',
  what: `every member starts an election at once on the ring of even ids then odd ones (2 → 4 → 1 → 3 at n = 4); heartbeats and the election timeout are ${QUIET_MS} ms and time is bounded at ${UNTIL_MS} ms, so no timer fires and the election itself is explored; no two members are told different leaders for one term, and at the end every member follows the largest id`,
  defaultN: 4,
  minN: 2,
  maxN: 5,
  defaults: { depth: 80, until: UNTIL_MS },
  liveness: (n) => [oneAgreedLeader(ringOf(n), { winner: n })],
  build(n): ExploreScenario<ChangRobertsEvent> {
    const ring = ringOf(n)
    const max = Math.max(...ring.map(Number))
    return {
      setup(net) {
        net.launch(
          ring,
          changRoberts({
            startAll: true,
            ring,
            heartbeat: { intervalMs: QUIET_MS },
            electionTimeoutMs: QUIET_MS,
          }),
        )
      },
      invariant({ net, events }) {
        const byTerm = new Map<number, { leader: NodeId; node: NodeId }>()
        for (const node of ring)
          for (const { leader, term } of leaders(events, node)) {
            const seen = byTerm.get(term)
            if (seen === undefined) byTerm.set(term, { leader, node })
            else if (seen.leader !== leader)
              return `term ${term}: node ${String(seen.node)} was told leader ${String(seen.leader)}, node ${String(node)} leader ${String(leader)}`
          }
        // The end: no message in flight and no timer due within the bound.
        if (net.choices().some((c) => c.kind === 'deliver' || c.t <= UNTIL_MS)) return undefined
        for (const node of ring) {
          const last = leaders(events, node).at(-1)
          if (last?.leader !== max)
            return `node ${String(node)} ends ${last ? `following ${String(last.leader)}` : 'without a leader'}, not ${max}`
        }
        return undefined
      },
    }
  },
}
