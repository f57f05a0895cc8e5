/**
 * The composed node in the deterministic simulator: the wiring moves the lock's coordinator and the
 * Berkeley master to whoever the election picks, and the fencing tokens follow the term.
 */
import { checkElection } from '@sd/election'
import { type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import {
  clusterNode,
  DEFAULT_TIMINGS,
  leaseBoundMs,
  nodeClock,
  termOfToken,
} from '../src/node/protocol.js'

type Emitted = { node: NodeId; t: number; proto: string; event: Record<string, unknown> }

function launch(seed: number) {
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 4 }, trace: false })
  const ids = ['n1', 'n2', 'n3']
  ids.forEach((id, i) => {
    net.addNode(id, { offset: (i - 1) * 40 })
  })
  const group = net.launch(ids, (self) => clusterNode(self, DEFAULT_TIMINGS, nodeClock()))
  const seen: Emitted[] = []
  net.onEmit((node, e, t) => {
    const { proto, event } = e as { proto: string; event: Record<string, unknown> }
    seen.push({ node, t, proto, event })
  })
  return { net, ids, group, seen }
}

const leaderEvents = (seen: Emitted[]) =>
  seen.filter((s) => s.proto === 'election' && s.event.type === 'leader')

describe('the composed node in the simulator', () => {
  it('moves the lock coordinator and the sync master to the leader, in the leader term', () => {
    const { net, group, seen } = launch(3)
    net.run({ until: 3000 })
    const first = leaderEvents(seen).at(-1)!.event as { leader: NodeId; term: number }
    // Every node's lock follows the leader, in its term.
    const changes = seen.filter((s) => s.proto === 'lock' && s.event.type === 'coordinator-changed')
    expect(new Set(changes.map((c) => c.node)).size).toBe(3)
    for (const c of changes)
      expect(c.event).toMatchObject({ coordinator: first.leader, term: first.term })
    // Berkeley adjusts every node from the leader.
    const adjusted = seen.filter((s) => s.proto === 'sync' && s.event.type === 'adjusted')
    expect(adjusted.length).toBeGreaterThanOrEqual(3)
    for (const a of adjusted) expect(a.event.source).toBe(first.leader)

    // A grant in the first term carries that term.
    const follower = (['n1', 'n2', 'n3'] as NodeId[]).find((id) => id !== first.leader)!
    group.request(follower, { proto: 'lock', req: { type: 'acquire' } })
    net.run({ until: 3500 })
    const got = seen.find((s) => s.proto === 'lock' && s.event.type === 'acquired')!
    expect(termOfToken(got.event.token as number)).toBe(first.term)
    group.request(follower, { proto: 'lock', req: { type: 'release' } })

    // The leader crashes: a new one in a higher term, and the next grant is in that term.
    net.crash(first.leader)
    net.run({ until: 3500 + 5 * DEFAULT_TIMINGS.timeoutMs + leaseBoundMs(DEFAULT_TIMINGS) })
    const next = leaderEvents(seen).at(-1)!.event as { leader: NodeId; term: number }
    expect(next.leader).not.toBe(first.leader)
    expect(next.term).toBeGreaterThan(first.term)
    group.request(follower, { proto: 'lock', req: { type: 'acquire' } })
    net.run({ until: net.now + 2 * leaseBoundMs(DEFAULT_TIMINGS) })
    const tokens = seen
      .filter((s) => s.proto === 'lock' && s.event.type === 'acquired')
      .map((s) => s.event.token as number)
    expect(tokens).toHaveLength(2)
    expect(termOfToken(tokens[1]!)).toBe(next.term)
    expect(tokens[1]!).toBeGreaterThan(tokens[0]!)

    const verdict = checkElection(
      seen.filter((s) => s.proto === 'election').map((s) => ({ ...s, event: s.event })),
    )
    expect(verdict.violations).toEqual([])
  })
})
