/**
 * Ample sets (`reduction: 'ample'`) against the full stateful search (no reduction at all): the
 * same verdict on every scenario the explorer tests use and on broken variants, the same set of
 * what the invariant reads over every state it is evaluated in, the same deadlocks; and fewer
 * states where the declared communication lets the reduction leave choices out.
 */
import { describe, expect, it } from 'vitest'
import { changRoberts, flood, pingPong } from '../../../../test-support/explore-protocols.js'
import type { Communication, ExploreOptions, ExploreScenario } from '../../src/explore/index.js'
import { explore, replay } from '../../src/explore/index.js'
import type { NodeId, Protocol } from '../../src/index.js'
import { broadcasts, configurations, once, quiet } from './support/configurations.js'
import { ids, launch } from './support/scenarios.js'

type Watch = (event: string) => boolean

/** What the invariant reads in a state: each node's watched events, in order. */
const projection = (events: ReadonlyArray<{ node: NodeId; event: unknown }>, watch: Watch) => {
  const byNode = new Map<string, string[]>()
  for (const { node, event } of events) {
    if (!watch(String(event))) continue
    const list = byNode.get(String(node)) ?? []
    list.push(String(event))
    byNode.set(String(node), list)
  }
  return JSON.stringify([...byNode].sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** The scenario with `reads` declared, recording every projection the invariant is asked about. */
function declared(
  scenario: ExploreScenario,
  watch: Watch,
  communication?: Communication,
): { scenario: ExploreScenario; seen: Set<string> } {
  const seen = new Set<string>()
  return {
    seen,
    scenario: {
      ...scenario,
      invariant: (state) => {
        seen.add(projection(state.events, watch))
        return scenario.invariant(state)
      },
      reads: { events: (event) => watch(String(event)) },
      ...(communication === undefined ? {} : { communication }),
    },
  }
}

/** Full search and ample search of one scenario: the comparisons every case makes. */
function compare(
  scenario: ExploreScenario,
  watch: Watch,
  communication: Communication | undefined,
  options: ExploreOptions = {},
) {
  const full = declared(scenario, watch, communication)
  const reduced = declared(scenario, watch, communication)
  const a = explore(full.scenario, { ...options, reduction: false })
  const b = explore(reduced.scenario, { ...options, reduction: 'ample' })
  expect(a.reduction).toBe('none')
  expect(b.reduction).toBe('ample')
  expect(b.counterexample === undefined, 'same verdict').toBe(a.counterexample === undefined)
  if (b.counterexample !== undefined) {
    expect(replay(scenario, b.counterexample.schedule).violation).toBeDefined()
    return { full: a, ample: b }
  }
  expect(a.exhausted).toBe(true)
  if (a.cutByDepth === 0) {
    expect(b.exhausted).toBe(true)
    // Every valuation of what the invariant reads that some state has, the reduced search meets.
    expect([...reduced.seen].sort()).toEqual([...full.seen].sort())
    // Deadlocks are kept (persistent sets keep every terminal state).
    expect(b.terminalStates).toBe(a.terminalStates)
  }
  expect(b.states).toBeLessThanOrEqual(a.states)
  return { full: a, ample: b }
}

const everyone = (n: number): Communication => ({ sendsTo: () => ids(n) })
/** pingPong: 1 pings only at start; the others answer 1. */
const star: Communication = { sendsTo: (from) => (from === 1 ? [] : [1]) }
const ring = (n: number): Communication => ({ sendsTo: (from) => [(Number(from) % n) + 1] })

/** Pairs (1, 2), (3, 4), ...: the odd one pings its partner `rounds` times, one at a time. */
function pairs(rounds: number) {
  return (self: NodeId): Protocol<{ type: 'ping' | 'pong'; n: number }, never, string> => {
    const me = Number(self)
    const partner = me % 2 === 1 ? me + 1 : me - 1
    return {
      start(ctx) {
        if (me % 2 === 1) ctx.send(partner, { type: 'ping', n: 1 })
      },
      onMessage(_from, msg, ctx) {
        ctx.emit(`${msg.type} ${msg.n}`)
        if (msg.type === 'ping') ctx.send(partner, { type: 'pong', n: msg.n })
        else if (msg.n < rounds) ctx.send(partner, { type: 'ping', n: msg.n + 1 })
      },
      snapshot: () => null,
      restore: () => undefined,
    }
  }
}
const partnered: Communication = {
  sendsTo: (from) => [Number(from) % 2 === 1 ? Number(from) + 1 : Number(from) - 1],
}

/** Node 1 sends three messages down 1 -> 2 -> 3; 2 forwards each, 3 emits what it got. */
function pipeline(self: NodeId): Protocol<{ n: number }, never, string> {
  return {
    start(ctx) {
      if (self === 1) for (const n of [1, 2, 3]) ctx.send(2, { n })
    },
    onMessage(_from, msg, ctx) {
      ctx.emit(`got ${msg.n}`)
      if (self === 2) ctx.send(3, msg)
    },
    snapshot: () => null,
    restore: () => undefined,
  }
}

const chain: Communication = { sendsTo: (from) => (from === 2 ? [3] : []) }

/** Pair (3, 4) finishes before pair (1, 2) starts: the ordering the ample sets put last. */
const pairsInOrder: ExploreScenario['invariant'] = ({ events }) => {
  const order = events.map((e) => `${e.node}:${String(e.event)}`)
  const done4 = order.indexOf('4:ping 2')
  const start2 = order.indexOf('2:ping 1')
  return done4 >= 0 && (start2 < 0 || start2 > done4) ? 'pair (3, 4) done first' : undefined
}

const all: Watch = () => true
const none: Watch = () => false

describe("explore, reduction 'ample': the verdicts of the full search", () => {
  // The configurations the explorer's tests share; every event watched (their invariants read
  // events only), with the communication of each protocol where it is known.
  const known: Record<string, Communication | undefined> = {
    'ping-pong, 3 nodes, 1 round': star,
    'ping-pong, 3 nodes, 2 rounds': star,
    'ping-pong, 4 nodes, 1 round': star,
    'ping-pong, 3 nodes, one loss': star,
    'ping-pong, clock step, timers in any order': star,
    'ring, 3 nodes, reordering links': ring(3),
    'ring without the flag': ring(3),
    'flood, 3 nodes': everyone(3),
    'flood, 4 nodes': everyone(4),
  }
  for (const [name, scenario, options] of configurations)
    it(name, () => {
      compare(scenario, all, known[name], options)
    })

  it('leaves choices out where the communication allows it, keeping the verdicts', () => {
    const cases: Array<[ExploreScenario, Watch, Communication]> = [
      [{ setup: launch(ids(4), pingPong(1)), invariant: quiet }, none, star],
      [{ setup: launch(ids(4), pingPong(2)), invariant: quiet }, (e) => e.startsWith('pong'), star],
      [{ setup: launch(ids(4), pairs(2)), invariant: quiet }, none, partnered],
      [{ setup: launch(ids(6), pairs(1)), invariant: quiet }, (e) => e === 'pong 1', partnered],
      [{ setup: launch(ids(3), pipeline), invariant: quiet }, none, chain],
    ]
    for (const [scenario, watch, communication] of cases) {
      const { full, ample } = compare(scenario, watch, communication)
      expect(ample.ample!.reduced).toBeGreaterThan(0)
      expect(ample.states).toBeLessThan(full.states)
    }
  })

  it('finds the violations of broken variants, however they hide among independent steps', () => {
    // Node 1 hears 3 before 2; node 4 finishes its pair before node 2 starts; 3 gets 2 before 1.
    const pongs: ExploreScenario = {
      setup: launch(ids(3), pingPong(1)),
      invariant: ({ events }) => {
        const at1 = events.filter((e) => e.node === 1).map((e) => String(e.event))
        return at1[0] === 'pong1 from 3' ? 'node 1 heard 3 first' : undefined
      },
    }
    const across: ExploreScenario = { setup: launch(ids(4), pairs(2)), invariant: pairsInOrder }
    const fifo: ExploreScenario = {
      fifo: false,
      setup: launch(ids(3), pipeline),
      invariant: ({ events }) => {
        const at3 = events.filter((e) => e.node === 3).map((e) => String(e.event))
        return at3[0] === 'got 2' ? 'node 3 got 2 first' : undefined
      },
    }
    const cases: Array<[ExploreScenario, Watch, Communication]> = [
      [pongs, (e) => e.startsWith('pong'), star],
      [across, (e) => e === 'ping 2' || e === 'ping 1', partnered],
      [fifo, all, chain],
    ]
    for (const [scenario, watch, communication] of cases) {
      const { full, ample } = compare(scenario, watch, communication)
      expect(full.counterexample).toBeDefined()
      expect(ample.counterexample).toBeDefined()
    }
  })

  it('misses a violation when the declaration hides what the invariant reads (C2 is what keeps it)', () => {
    // The test above can fail: the same broken variant, declared to read nothing.
    const scenario: ExploreScenario = {
      setup: launch(ids(4), pairs(2)),
      invariant: pairsInOrder,
      reads: {},
      communication: partnered,
    }
    const honest = explore({ ...scenario, reads: { events: () => true } }, { reduction: 'ample' })
    const lying = explore(scenario, { reduction: 'ample' })
    expect(honest.counterexample).toBeDefined()
    expect(lying.counterexample).toBeUndefined()
  })

  it('expands fully without a reads declaration, and refuses a communication the protocol breaks', () => {
    const scenario: ExploreScenario = { setup: launch(ids(4), pingPong(1)), invariant: quiet }
    expect(explore(scenario, { reduction: 'ample' }).reduction).toBe('sleep')
    const undeclared = explore({ ...scenario, reads: {} }, { reduction: 'ample' })
    expect(undeclared.reduction).toBe('ample')
    expect(undeclared.ample!.reduced).toBe(0)
    // The stateless search has no ample sets: sleep sets.
    const stateless = explore({ ...scenario, reads: {} }, { reduction: 'ample', stateful: false })
    expect(stateless.reduction).toBe('sleep')
    // The others answer 1, which this declaration leaves out.
    const wrong: Communication = { sendsTo: () => [] }
    expect(() =>
      explore({ ...scenario, reads: {}, communication: wrong }, { reduction: 'ample' }),
    ).toThrow(/sendsTo\(2\) leaves out the message m:2>1#1/)
    // A timer set by a node `timed` leaves out.
    const sleepy = (self: NodeId): Protocol<string, never, string> => ({
      start(ctx) {
        if (self === 1) ctx.send(2, 'wake')
      },
      onMessage(_from, _msg, ctx) {
        ctx.setTimer('nap', 5)
      },
      snapshot: () => null,
      restore: () => undefined,
    })
    const napping: ExploreScenario = {
      setup: launch(ids(2), sleepy),
      invariant: quiet,
      reads: {},
      communication: { sendsTo: () => [] },
    }
    expect(() => explore(napping, { reduction: 'ample' })).toThrow(/t:2#1 came of a delivery to 2/)
    const declaredNap = { ...napping, communication: { sendsTo: () => [], timed: [2] } }
    expect(explore(declaredNap, { reduction: 'ample' }).exhausted).toBe(true)
  })

  it('keeps terminal states and verdicts with a broadcast whose every node talks to all', () => {
    const { ample } = compare(broadcasts(3, 1), all, everyone(3))
    // Everyone may send to everyone: nothing to leave out.
    expect(ample.ample!.reduced).toBe(0)
  })

  it('runs the stateful search with flood and a ring declared', () => {
    compare(once(4, flood(true)), (e) => e.startsWith('got'), everyone(4))
    compare(once(3, changRoberts(3, true), false), (e) => e.startsWith('leader'), ring(3))
  })
})
