/**
 * What a deployment needs of the view-wired majority election (packages/mutex/examples/
 * cluster-node.ts): a joiner the founders' runtimes were never told of (their ctx.peers are the
 * founders) becomes a full member once a view names it, its votes counted; and the leader reports
 * a member that acknowledges nothing (`silentAfterMs`), which `electionToMembership` removes.
 */
import { type Ctx, faultsOf, type NodeId, type Protocol, type ProtocolFactory } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import { type MajorityEvent, majorityElection } from '../src/majority/index.js'
import { resolveOptions } from '../src/majority/options.js'
import type { MembershipEvent } from '../src/membership/events.js'
import { resolveOptions as membershipOptions } from '../src/membership/options.js'
import { electionToMembership } from '../src/membership/wiring.js'
import { childEvents, memberNode, TIMEOUT } from './support/membership.js'

/** The factory's nodes see only `known` as peers (besides themselves), as a runtime told so. */
function knowingOnly<M, R, E>(
  factory: ProtocolFactory<M, R, E>,
  known: (self: NodeId) => readonly NodeId[],
): ProtocolFactory<M, R, E> {
  return (self) => {
    const inner = factory(self)
    const narrow = (ctx: Ctx<M, E>): Ctx<M, E> => {
      const peers = ctx.peers.filter((id) => known(self).includes(id))
      return {
        ...ctx,
        peers,
        broadcast: (msg) => {
          for (const id of peers) ctx.send(id, msg)
        },
      }
    }
    return {
      start: (ctx) => inner.start?.(narrow(ctx)),
      onMessage: (from, msg, ctx) => inner.onMessage(from, msg, narrow(ctx)),
      onTimer: (key, ctx) => inner.onTimer?.(key, narrow(ctx)),
      onRequest: (req, ctx) => inner.onRequest?.(req, narrow(ctx)),
    } satisfies Protocol<M, R, E>
  }
}

describe('the view-wired majority election in a deployment', () => {
  it('a joiner unknown to the founders becomes a voting member: without its vote there is no majority', () => {
    const founders: NodeId[] = [1, 2, 3]
    const ids: NodeId[] = [...founders, 4]
    forSeeds(seedList(10), (seed) => {
      const factory = knowingOnly(memberNode(membershipOptions({ founders })), (self) =>
        self === 4 ? ids : founders,
      )
      let joinedAt: number | undefined
      const { net } = runInSim(ids, factory, {
        seed,
        net: { latency: { kind: 'uniform', min: 1, max: 10 } },
        until: 12_000,
        plan: (net) => {
          net.onEmit((_node, event) => {
            const e = event as { proto?: string; event?: MembershipEvent }
            if (joinedAt !== undefined || e.proto !== 'membership' || e.event?.type !== 'view')
              return
            if (!e.event.members.includes(4)) return
            joinedAt = net.now
            // Once 4 is in, kill the leader: {1, 2, 3, 4} needs three votes, 4's among them.
            net.at(net.now + 2_000, () => {
              const leader = agreedLeader(
                checkElection(childEvents(net, 'election')),
                ids.filter((id) => !net.isCrashed(id)),
              )?.leader
              if (leader !== undefined && leader !== 4) net.crash(leader)
              else net.crash(3)
            })
          })
        },
      })
      expect(joinedAt, 'the joiner was admitted').toBeDefined()
      const election = childEvents<MajorityEvent>(net, 'election')
      const verdict = checkElection(election, faultsOf(net.trace))
      expect(verdict.violations).toEqual([])
      const live = ids.filter((id) => !net.isCrashed(id))
      expect(live).toHaveLength(3)
      const agreed = agreedLeader(verdict, live)
      expect(agreed, 'the three left elect, the joiner voting').toBeDefined()
      expect(agreed!.term).toBeGreaterThan(1)
      const votes = election.filter((e) => e.node === 4 && e.event.type === 'voted')
      const ignoredFrom4 = election.filter(
        (e) =>
          e.node !== 4 &&
          e.event.type === 'ignored' &&
          e.event.from === 4 &&
          e.t > joinedAt! + TIMEOUT,
      )
      expect(votes.length + (agreed!.leader === 4 ? 1 : 0)).toBeGreaterThan(0)
      expect(ignoredFrom4).toEqual([])
    })
  })

  it('the leader reports a crashed member silent once, and never a live one', () => {
    const ids: NodeId[] = [1, 2, 3, 4, 5]
    const SILENT = 1_000
    forSeeds(seedList(10), (seed) => {
      const { events } = runInSim(
        ids,
        majorityElection({ heartbeat: { intervalMs: 100, timeoutMs: 500 }, silentAfterMs: SILENT }),
        {
          seed,
          net: { latency: { kind: 'uniform', min: 1, max: 10 }, loss: 0.05 },
          until: 8_000,
          plan: (net) => net.at(3_000, () => net.crash(2)),
        },
      )
      const silent = events.filter((e) => e.event.type === 'member-silent')
      expect(silent.map((e) => e.event)).toEqual([
        { type: 'member-silent', node: 2, term: 1, silentMs: expect.any(Number) },
      ])
      expect(silent[0]!.node).toBe(5)
      // Within a heartbeat of the due moment (the last heartbeat 2 acknowledged was before 3,000).
      expect(silent[0]!.t).toBeGreaterThanOrEqual(3_000 + SILENT - 200)
      expect(silent[0]!.t).toBeLessThanOrEqual(3_000 + SILENT + 100)
      expect(electionToMembership(silent[0]!.event)).toEqual({ type: 'remove', id: 2 })
    })
  })

  it('silentAfterMs below the timeout is refused; without it nothing is reported', () => {
    expect(() => resolveOptions({ silentAfterMs: 100 })).toThrow(/silentAfterMs/)
    expect('silentAfterMs' in resolveOptions({})).toBe(false)
    expect(resolveOptions({ silentAfterMs: 500 }).silentAfterMs).toBe(500)
  })
})
