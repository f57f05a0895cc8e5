/**
 * Incarnations of one id in the agreed membership (src/membership/generation.ts): a process that
 * comes back under its old id with a fresh state file is a new incarnation. Found between real
 * processes (membership-netns.test.ts): the UDP transport resent to the restarted process what
 * the killed one had not acknowledged, an announcement of a view that still named it, and the
 * fresh process took that view as its first, accepted the next one on the old one's behalf, and
 * installed its own removal. Now a joiner takes as its first view only the one that admitted its
 * generation, and a member's JOIN of a later generation removes the old incarnation first.
 */
import type { NodeId } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { checkViews } from '../src/membership/check.js'
import type { MembershipRequest } from '../src/membership/events.js'
import { agreedMembership, type MembershipMessage } from '../src/membership/index.js'
import type { ViewRecord } from '../src/membership/view.js'
import { stubCtx } from './support/stub-ctx.js'

const link = { latency: { kind: 'uniform' as const, min: 1, max: 10 } }
const leaderIs = (leader: NodeId, term: number): MembershipRequest => ({
  type: 'leader',
  leader,
  term,
})

describe('agreed membership: incarnations of one id', () => {
  it('a joiner takes as its first view only the one that admitted its generation', () => {
    const node = agreedMembership({ founders: [1, 2, 3] })(4)
    const ctx = stubCtx<MembershipMessage>(4, [1, 2, 3])
    const sent: { to: NodeId; msg: MembershipMessage }[] = []
    ctx.send = (to, msg) => void sent.push({ to, msg })
    ctx.clock = 7_000
    node.start!(ctx)
    node.onTimer!('membership:retry', ctx)
    expect(sent.find((s) => s.msg.type === 'join')?.msg).toEqual({
      type: 'join',
      generation: 7_000,
    })
    const views = () => ctx.emitted.filter((e) => (e as { type: string }).type === 'view')
    const install = (record: ViewRecord) => node.onMessage(3, { type: 'install', record }, ctx)
    // What an earlier incarnation was sent: a view naming 4 that did not admit it, and the view
    // that admitted the earlier generation.
    install({ view: 3, members: [2, 3, 4], joined: [], left: [1] })
    install({ view: 2, members: [1, 2, 3, 4], joined: [4], left: [], generation: 1_000 })
    expect(views()).toEqual([])
    install({ view: 5, members: [2, 3, 4], joined: [4], left: [], generation: 7_000 })
    expect(views()).toEqual([{ type: 'view', view: 5, members: [2, 3, 4], joined: [4], left: [] }])
  })

  it('a member back with a lost state file is removed, then admitted again as a new incarnation', () => {
    const ids = [1, 2, 3, 4]
    const { events } = runInSim(ids, agreedMembership({ founders: [1, 2, 3], seeds: [2] }), {
      seed: 3,
      net: link,
      until: 5_000,
      plan: (net, group) => {
        for (const id of ids) group.request(id, leaderIs(3, 1))
        net.at(1_000, () => net.crash(4))
        net.at(2_000, () => net.restart(4, { wipeStorage: true }))
      },
    })
    const views = ofType(events, 'view')
    const at = (node: NodeId) => views.filter((v) => v.node === node).map((v) => v.event)
    expect(at(3).map((v) => [v.members, v.joined, v.left])).toEqual([
      [[1, 2, 3], [1, 2, 3], []],
      [[1, 2, 3, 4], [4], []],
      [[1, 2, 3], [], [4]],
      [[1, 2, 3, 4], [4], []],
    ])
    // The new incarnation's first view is the one that admitted it (the old one's ended at 2).
    expect(at(4).map((v) => v.view)).toEqual([2, 4])
    expect(ofType(events, 'left')).toEqual([])
    // The checker knows nodes, not incarnations: the new one's views are judged as another node's.
    const byIncarnation = events.map((e) =>
      e.node === 4 && e.t >= 2_000 ? { ...e, node: "4'" } : e,
    )
    expect(checkViews(byIncarnation).violations).toEqual([])
  })
})
