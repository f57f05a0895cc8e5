/**
 * A `resign` wired synchronously to the election's own `leader` announcement (a composed protocol
 * answers it within the same step): the leader steps down inside its announcement, and must send
 * no heartbeat of that term afterwards. Before, becomeLeader went on after the announcement and
 * started the heartbeats of a leadership it had already given up.
 */
import { compose, type NodeId, type Protocol } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { majorityElection } from '../src/majority/index.js'

/** Asks the election to resign whenever it names this node leader of a term below `until`. */
const resigner = (self: NodeId, until: number): Protocol<never, unknown, { type: 'resign' }> => ({
  start() {},
  onMessage() {},
  onTimer() {},
  onRequest(req, ctx) {
    const r = req as { type?: string; leader?: NodeId; term?: number }
    if (r.type === 'leader' && r.leader === self && (r.term ?? 0) < until) {
      ctx.emit({ type: 'resign' })
    }
  },
})

describe('majority election: resign inside the leader announcement', () => {
  it('sends no heartbeat of the term it stepped down from, and the group elects another', () => {
    const ids = [1, 2, 3]
    const { net, events } = runInSim(
      ids,
      (self: NodeId) =>
        compose(
          {
            election: majorityElection({ heartbeat: { intervalMs: 50, timeoutMs: 250 } })(self),
            resigner: resigner(self, 3),
          },
          {
            wiring: [
              { from: 'election', to: 'resigner', map: (e) => e },
              { from: 'resigner', to: 'election', map: (e) => e },
            ],
          },
        ),
      { seed: 1, net: { latency: { kind: 'uniform', min: 1, max: 10 } }, until: 5_000 },
    )
    const stepped = events.flatMap(({ node, t, event }) => {
      const e = (event as { event?: { type?: string; term?: number; reason?: string } }).event
      return e?.type === 'stepped-down' && e.reason === 'resign' ? [{ node, t, term: e.term! }] : []
    })
    // Terms 1 and 2 were resigned inside their announcements.
    expect(stepped.map((s) => s.term)).toEqual([1, 2])
    for (const { node, term } of stepped) {
      const beats = net.trace.filter((e) => {
        if (e.type !== 'send' || e.from !== node) return false
        const m = e.msg as { type?: string; term?: number }
        return (m.type === 'heartbeat' || m.type === 'leader') && m.term === term
      })
      expect({ node, term, beats: beats.length }).toEqual({ node, term, beats: 0 })
    }
    // Term 3's leader keeps it.
    const last = events.flatMap(({ node, event }) => {
      const e = (event as { event?: { type?: string; leader?: NodeId; term?: number } }).event
      return e?.type === 'leader' ? [{ node, leader: e.leader, term: e.term }] : []
    })
    expect(last.at(-1)?.term).toBeGreaterThanOrEqual(3)
  })
})
