import type { CausalBroadcastRequest, CausalEvent } from '@sd/clocks'
import type { Protocol } from '@sd/transport'
import { explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { sdWith } from './broken-variants.js'
import { causalOrderCheck, causalScenario, causalSymmetry } from './clocks.js'
import type { CheckSpec } from './spec.js'

type Msg = { type: 'causal'; clock: number[]; payload: string }

/** Causal broadcast with no hold-back: a message is delivered the moment it arrives. */
function eager(): Protocol<Msg, CausalBroadcastRequest<string>, CausalEvent<string>> {
  let members: Array<string | number> = []
  let delivered: number[] = []
  const init = (self: string | number, peers: ReadonlyArray<string | number>) => {
    if (members.length > 0) return
    members = [self, ...peers].sort((a, b) => Number(a) - Number(b))
    delivered = members.map(() => 0)
  }
  return {
    start: (ctx) => init(ctx.self, ctx.peers),
    onRequest(req, ctx) {
      init(ctx.self, ctx.peers)
      const me = members.indexOf(ctx.self)
      delivered[me]!++
      const clock = [...delivered]
      ctx.emit({ type: 'broadcast', seq: clock[me]!, clock, payload: req.payload })
      ctx.broadcast({ type: 'causal', clock, payload: req.payload })
      const delivery = { from: ctx.self, seq: clock[me]!, clock, delayed: false, local: clock }
      ctx.emit({ type: 'deliver', ...delivery, payload: req.payload })
    },
    onMessage(from, msg, ctx) {
      init(ctx.self, ctx.peers)
      const s = members.indexOf(from)
      delivered[s] = Math.max(delivered[s]!, msg.clock[s]!)
      const local = [...delivered]
      const seq = msg.clock[s]!
      ctx.emit({
        type: 'deliver',
        from,
        seq,
        clock: msg.clock,
        payload: msg.payload,
        delayed: false,
        local,
      })
    },
    snapshot: () => ({ members, delivered }),
  }
}

const eagerCheck: CheckSpec = {
  ...causalOrderCheck,
  scenario: 'causal-order-eager',
  build: (n) => causalScenario(n, 1, eager),
}

describe('sd check --symmetry: the causal broadcast members are interchangeable', () => {
  it('causal-order: the same verdict with fewer states, and the figures on the search line', () => {
    const plain = JSON.parse(sdWith([], 'causal-order', '--no-liveness', '--json').out)
    const { code, out } = sdWith([], 'causal-order', '--symmetry', '--json')
    expect(code, out).toBe(0)
    const reduced = JSON.parse(out)
    expect(plain).toMatchObject({ exhausted: true, violations: [] })
    expect(reduced).toMatchObject({ exhausted: true, violations: [], liveness: [] })
    expect(reduced.symmetry).toEqual({
      groups: [[1, 2, 3]],
      permutations: 6,
      merged: expect.any(Number),
    })
    expect(reduced.symmetry.merged).toBeGreaterThan(0)
    expect(reduced.states).toBeLessThan(plain.states)
    // Every terminal state of the full search is one of the reduced search's up to renaming.
    expect(reduced.terminalStates).toBeLessThan(plain.terminalStates)
    const text = sdWith([], 'causal-order', '--symmetry').out
    expect(text).toMatch(
      /search: stateful .*; symmetry: \{1, 2, 3\} interchangeable, 6 relabellings a state, \d+ states merged/,
    )
    expect(text).toContain('liveness: not checked with --symmetry')
  })

  it('two broadcasts each (payloads m<id>.<j>): the same verdict, fewer states', () => {
    // n = 2: the invariant keeps each node's history, whose orders make n = 3 too large here.
    const scenario = causalScenario(2, 2)
    const options = { depth: 60, maxStates: 20_000 }
    const full = explore(scenario, options)
    const reduced = explore({ ...scenario, ...causalSymmetry(2) }, options)
    for (const result of [full, reduced]) {
      expect(result).toMatchObject({ mode: 'stateful', exhausted: true })
      expect(result.counterexample).toBeUndefined()
    }
    expect(reduced.symmetry?.merged).toBeGreaterThan(0)
    expect(reduced.states).toBeLessThan(full.states)
  })

  it('a broken variant (no hold-back) is caught with and without symmetry', () => {
    const plain = sdWith([eagerCheck], 'causal-order-eager', '--no-liveness', '--json')
    const reduced = sdWith([eagerCheck], 'causal-order-eager', '--symmetry', '--json')
    expect(plain.code).toBe(1)
    expect(reduced.code).toBe(1)
    const [a, b] = [JSON.parse(plain.out), JSON.parse(reduced.out)]
    expect(a.violations[0]).toMatch(/delivered m\d before m\d, which its sender had delivered/)
    expect(b.violations[0]).toMatch(/delivered m\d before m\d, which its sender had delivered/)
    expect(b.symmetry.permutations).toBe(6)
    // Both stop at their first counterexample: the reduced search gets there in no more states.
    expect(b.states).toBeLessThanOrEqual(a.states)
    // The counterexample of the reduced search is a concrete run: it replays.
    const text = sdWith([eagerCheck], 'causal-order-eager', '--symmetry').out
    expect(text).toMatch(/replay: {3}the shrunk schedule, then virtual-time order$/m)
  })

  it('the relabel hook permutes the vectors and renames senders and payloads', () => {
    const swap = (id: string | number) => (id === 1 ? 2 : id === 2 ? 1 : id)
    const relabel = causalSymmetry(3).relabel!
    expect(relabel({ type: 'causal', clock: [2, 0, 1], payload: 'm1.2' }, swap)).toEqual({
      type: 'causal',
      clock: [0, 2, 1],
      payload: 'm2.2',
    })
    const snapshot = {
      members: [1, 2, 3],
      delivered: [1, 0, 0],
      held: [
        { from: 1, seq: 2, clock: [2, 0, 0], payload: 'm1.2' },
        { from: 3, seq: 1, clock: [0, 1, 1], payload: 'm3.1' },
      ],
    }
    expect(relabel(snapshot, swap)).toEqual({
      members: [1, 2, 3],
      delivered: [0, 1, 0],
      held: [
        { from: 2, seq: 2, clock: [0, 2, 0], payload: 'm2.2' },
        { from: 3, seq: 1, clock: [1, 0, 1], payload: 'm3.1' },
      ],
    })
  })

  it('is refused where a spec declares no symmetry, and with --pct', () => {
    expect(() => sdWith([], 'mutex-ricart-agrawala', '--symmetry')).toThrow(
      /declares no interchangeable nodes/,
    )
    expect(() => sdWith([], 'causal-order', '--symmetry', '--pct', '3')).toThrow(/not with --pct/)
  })
})
