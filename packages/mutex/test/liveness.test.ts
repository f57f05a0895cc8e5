import { emitsOf, type NodeId, type Protocol, type ProtocolFactory } from '@sd/transport'
import { type ExploreScenario, explore, replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import type { MutexRequest } from '../src/contract.js'
import { type MaekawaEvent, type MaekawaMessage, maekawa } from '../src/maekawa/index.js'

type Maekawa = Protocol<MaekawaMessage, MutexRequest, MaekawaEvent>

/**
 * Maekawa where a node leaves the section as soon as it enters (after the handler that let it
 * in); with `dropInquire`, INQUIRE messages on the wire are ignored: the variant without
 * INQUIRE, whose votes, granted in arrival order, can wait for each other in a cycle.
 */
function leavingAtOnce(
  dropInquire: boolean,
): ProtocolFactory<MaekawaMessage, MutexRequest, MaekawaEvent> {
  const factory = maekawa()
  return (self) => {
    const inner: Maekawa = factory(self)
    const leaveIfIn = (ctx: Parameters<Maekawa['onMessage']>[2]) => {
      const state = (inner.snapshot!() as { state: string }).state
      if (state === 'held') inner.onRequest!({ type: 'release' }, ctx)
    }
    return {
      ...inner,
      onMessage(from, msg, ctx) {
        if (dropInquire && msg.type === 'inquire') return
        inner.onMessage(from, msg, ctx)
        leaveIfIn(ctx)
      },
      onRequest(req, ctx) {
        inner.onRequest!(req, ctx)
        leaveIfIn(ctx)
      },
    }
  }
}

const ids = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => i + 1)

function scenario(
  n: number,
  askers: readonly NodeId[],
  dropInquire: boolean,
): ExploreScenario<MaekawaEvent> {
  return {
    setup(net) {
      net.launch(ids(n), leavingAtOnce(dropInquire))
      for (const id of askers) net.request(id, { type: 'acquire' })
    },
    invariant: () => undefined,
    liveness: {
      name: 'every asker enters',
      holds: ({ events }) =>
        askers.every((id) => events.some((e) => e.node === id && e.event.type === 'acquired')),
    },
  }
}

// At n = 4 the grid quorums of 2 and 3 are {1, 2, 4} and {1, 3, 4}: they meet in 1 and 4, two
// arbiters that are neither asker, so every INQUIRE that breaks their tie goes over the wire.
describe('Maekawa at n = 4, nodes 2 and 3 asking: liveness on the state graph', () => {
  it('with INQUIRE, every asker enters in every fair run', () => {
    const result = explore(scenario(4, [2, 3], false))
    expect(result.mode).toBe('stateful')
    expect(result.exhausted).toBe(true)
    expect(result.liveness![0]!.verdict).toBe('holds')
  })

  it('without INQUIRE, the votes of 1 and 4 split and both wait forever: a deadlock lasso', () => {
    const s = scenario(4, [2, 3], true)
    const result = explore(s)
    const [verdict] = result.liveness!
    expect(verdict!.verdict).toBe('lasso')
    const lasso = verdict!.lasso!
    expect(lasso.kind).toBe('deadlock')
    expect(lasso.message).toContain('every asker enters')
    // Its schedule replays to a network with nothing left to happen and neither asker inside.
    const end = replay(s, lasso.schedule, { maxSteps: 0 })
    expect(end.skipped).toEqual([])
    expect(end.net.choices('any-order')).toEqual([])
    const emitted = emitsOf<MaekawaEvent>(end.net.trace)
    expect(emitted.filter((e) => e.event.type === 'acquired')).toEqual([])
  })
})
