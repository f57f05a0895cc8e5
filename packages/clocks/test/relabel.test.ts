import type { NodeId } from '@sd/transport'
import { type ExploreScenario, explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { causalBroadcast, causalRelabel } from '../src/index.js'

const swap12 = (id: NodeId) => (id === 1 ? 2 : id === 2 ? 1 : id)

describe('causalRelabel', () => {
  it('permutes vector entries and renames senders, leaving counts and payloads alone', () => {
    const relabel = causalRelabel([3, 1, 2]) // given in any order: vectors follow sorted ids
    expect(relabel({ type: 'causal', from: 1, clock: [2, 0, 1], payload: 'p' }, swap12)).toEqual({
      type: 'causal',
      from: 2,
      clock: [0, 2, 1],
      payload: 'p',
    })
    const held = [
      { from: 1, seq: 2, clock: [2, 0, 0] },
      { from: 3, seq: 1, clock: [0, 1, 1] },
      { from: 2, seq: 1, clock: [0, 1, 0] },
    ]
    expect(relabel({ members: [1, 2, 3], delivered: [1, 0, 0], held }, swap12)).toEqual({
      members: [1, 2, 3],
      delivered: [0, 1, 0],
      held: [
        { from: 1, seq: 1, clock: [1, 0, 0] },
        { from: 2, seq: 2, clock: [0, 2, 0] },
        { from: 3, seq: 1, clock: [1, 0, 1] },
      ],
    })
  })

  it('renames the ids a payload carries through its own hook', () => {
    const relabel = causalRelabel([1, 2], (p, rename) => ({ by: rename((p as { by: NodeId }).by) }))
    expect(relabel({ payload: { by: 1 }, clock: [1, 0] }, swap12)).toEqual({
      payload: { by: 2 },
      clock: [0, 1],
    })
  })

  it('lets the explorer merge relabelled states: fewer states, the same verdict', () => {
    const members: NodeId[] = [1, 2, 3]
    const scenario: ExploreScenario = {
      setup(net) {
        net.launch(members, () => causalBroadcast<string>())
        for (const id of members) net.request(id, { type: 'broadcast', payload: 'hello' })
      },
      invariant: () => undefined,
      history: () => null,
    }
    const plain = explore(scenario, { timers: 'any-order' })
    const reduced = explore(
      { ...scenario, symmetric: true, relabel: causalRelabel(members) },
      { timers: 'any-order' },
    )
    expect(plain.exhausted && reduced.exhausted).toBe(true)
    expect(reduced.symmetry?.merged).toBeGreaterThan(0)
    expect(reduced.states).toBeLessThan(plain.states)
  })
})
