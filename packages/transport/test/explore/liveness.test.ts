import { describe, expect, it } from 'vitest'
import {
  bounce,
  ricartAgrawalaReleasing,
  tokenRing,
} from '../../../../test-support/liveness-protocols.js'
import {
  type ExploreScenario,
  type ExploreState,
  explore,
  type LivenessGoal,
  replay,
} from '../../src/explore/index.js'
import { findLasso } from '../../src/explore/liveness.js'
import { StateGraph } from '../../src/explore/state-graph.js'
import type { NodeId, ProtocolFactory } from '../../src/index.js'

// biome-ignore lint/suspicious/noExplicitAny: any test protocol
type AnyFactory = ProtocolFactory<any, any, string>

const emittedBy = (state: ExploreState, node: NodeId, event: string) =>
  state.events.some((e) => e.node === node && e.event === event)

/** Every node in `nodes` emitted `event`. */
const everyone = (name: string, nodes: readonly NodeId[], event: string): LivenessGoal => ({
  name,
  holds: (state) => nodes.every((node) => emittedBy(state, node, event)),
})

/** Every node that emitted `ask` emitted `served`. */
const served: LivenessGoal = {
  name: 'every asker is served',
  holds: (state) =>
    state.events.every((e) => e.event !== 'ask' || emittedBy(state, e.node, 'served')),
}

const scenario = (
  ids: NodeId[],
  factory: AnyFactory,
  liveness: ExploreScenario['liveness'],
): ExploreScenario => ({
  setup: (net) => {
    net.launch(ids, factory)
  },
  invariant: () => undefined,
  liveness,
})

const ring = (regenerateMs?: number) =>
  scenario(
    [1, 2, 3],
    tokenRing(3, [2, 3], regenerateMs),
    everyone('every asker entered', [2, 3], 'enter'),
  )

describe('explore: liveness on the state graph', () => {
  it('a token lost once and never made again: a deadlock, replayable', () => {
    const s = ring()
    const result = explore(s, { faults: { loss: 1 } })
    expect(result.mode).toBe('stateful')
    const [verdict] = result.liveness!
    expect(verdict!.verdict).toBe('lasso')
    const lasso = verdict!.lasso!
    expect(lasso.kind).toBe('deadlock')
    expect(lasso.loop).toBe('')
    expect(lasso.message).toContain('every asker entered')
    expect(lasso.prefix).toMatch(/drop:/)
    // The prefix replays to a state with nothing left to happen and an asker not in.
    const end = replay(s, lasso.prefix, { maxSteps: 0 })
    expect(end.skipped).toEqual([])
    expect(end.net.choices('any-order')).toEqual([])
  })

  it('without the loss, the same ring reaches its goal', () => {
    const result = explore(ring(), {})
    expect(result.exhausted).toBe(true)
    expect(result.liveness![0]!.verdict).toBe('holds')
  })

  it('the ring that regenerates its token on a timer: no lasso within the bound', () => {
    const result = explore(ring(100), { faults: { loss: 1 }, until: 300 })
    const [verdict] = result.liveness!
    expect(verdict!.lasso).toBeUndefined()
    expect(verdict!.verdict).toBe('holds')
    expect(result.exhausted).toBe(true)
  })

  it('with a bound too short for the timer, the goal is not reached within it', () => {
    const result = explore(ring(100), { faults: { loss: 1 }, until: 50 })
    const [verdict] = result.liveness!
    expect(verdict!.verdict).toBe('not reached within the bound')
    expect(verdict!.unreached).toBeGreaterThan(0)
  })

  it('a livelock: a fair cycle where the asker is never served, replayable', () => {
    const s = scenario([1, 2], bounce(), served)
    const result = explore(s)
    const [verdict] = result.liveness!
    expect(verdict!.verdict).toBe('lasso')
    const lasso = verdict!.lasso!
    expect(lasso.kind).toBe('cycle')
    expect(lasso.message).toContain('every asker is served')
    expect(lasso.loop.split(' ')).toHaveLength(2)
    const run = replay(s, lasso.schedule, { maxSteps: 0 })
    expect(run.skipped).toEqual([])
    // After the prefix and after each turn of the loop, the network is in one state.
    const at = (schedule: string) => replay(s, schedule, { maxSteps: 0 }).net.fingerprint()
    const once = `${lasso.prefix} ${lasso.loop}`.trim()
    expect(at(once)).toEqual(at(lasso.prefix))
    expect(at(lasso.schedule)).toEqual(at(lasso.prefix))
  })

  it('a cycle that only an unfair schedule keeps (the timer never fires) is no lasso', () => {
    const result = explore(scenario([1, 2], bounce(10), served))
    expect(result.exhausted).toBe(true)
    expect(result.liveness![0]!.verdict).toBe('holds')
  })

  it('Ricart-Agrawala that leaves: every request is served, no lasso', () => {
    const ids = [1, 2, 3]
    const s = scenario(ids, ricartAgrawalaReleasing(), everyone('every node entered', ids, 'enter'))
    const result = explore(s)
    expect(result.exhausted).toBe(true)
    expect(result.counterexample).toBeUndefined()
    expect(result.liveness![0]!.verdict).toBe('holds')
    expect(result.states).toBeGreaterThan(10)
  })

  it('the never-leaving Ricart-Agrawala deadlocks: the others wait forever', () => {
    const ids = [1, 2]
    const never: AnyFactory = (self) => {
      const p = ricartAgrawalaReleasing()(self)
      return {
        ...p,
        onMessage: (from, msg, ctx) =>
          msg.type === 'ok' ? ctx.emit('enter') : p.onMessage(from, msg, ctx),
      }
    }
    const result = explore(scenario(ids, never, everyone('every node entered', ids, 'enter')))
    expect(result.liveness![0]!.lasso?.kind).toBe('deadlock')
  })

  it('checks several goals apart, and needs the stateful search', () => {
    const goals = [served, { name: 'nothing', holds: () => true }]
    const result = explore(scenario([1, 2], bounce(), goals))
    expect(result.liveness!.map((l) => l.verdict)).toEqual(['lasso', 'holds'])
    expect(() => explore(scenario([1, 2], bounce(), goals), { stateful: false })).toThrow(
      /stateful/,
    )
  })
})

/** A graph by hand: `pending[s]` the tasks pending in state s, edges `[from, task, to]`. */
function graphOf(pending: string[][], edges: Array<[number, string, number]>, goal: boolean[]) {
  const graph = new StateGraph([{ name: 'g', holds: () => false }])
  const tasks = new Map<string, number>()
  const task = (t: string) => {
    if (!tasks.has(t)) tasks.set(t, tasks.size)
    return tasks.get(t)!
  }
  pending.forEach((p, s) => {
    graph.keys.push(String(s))
    graph.holds.push([goal[s]!])
    graph.pending.push(p.map(task))
    graph.edges.push([])
    graph.expanded.push(true)
    graph.ends.push(undefined)
  })
  for (const [from, t, to] of edges) {
    graph.labels.push(`happen ${t}`)
    graph.labelTask.push(task(t))
    graph.edges[from]!.push([graph.labels.length - 1, to])
  }
  return graph
}

describe('findLasso: weak fairness on a component', () => {
  it('a task pending in every state of the cycle and never taken makes it unfair', () => {
    // 0 <-> 1 bounce a ball while timer T is pending throughout; T leads out to the goal (2).
    const edges: Array<[number, string, number]> = [
      [0, 'a', 1],
      [1, 'b', 0],
      [0, 'T', 2],
    ]
    const unfair = graphOf([['a', 'T'], ['b', 'T'], []], edges, [false, false, true])
    expect(findLasso(unfair, 0, 0).lasso).toBeUndefined()
    // Without the pending timer, the same cycle is fair.
    const fair = graphOf([['a'], ['b'], []], edges, [false, false, true])
    expect(findLasso(fair, 0, 0).lasso?.loop.map(([, s]) => s)).toEqual([1, 0])
  })

  it('a task pending everywhere but taken inside: the loop goes through that edge', () => {
    // 0 -> 1 -> 0 and 0 -> 2 -> 0; c pending everywhere, taken only by 2 -> 0.
    const graph = graphOf(
      [['a', 'c'], ['b', 'c'], ['c']],
      [
        [0, 'a', 1],
        [1, 'b', 0],
        [0, 'x', 2],
        [2, 'c', 0],
      ],
      [false, false, false],
    )
    const lasso = findLasso(graph, 0, 0).lasso!
    expect(lasso.kind).toBe('cycle')
    expect(lasso.loop.map(([label]) => graph.labels[label])).toContain('happen c')
  })

  it('a task pending in every state but one: the loop detours through that state', () => {
    // a pending in 0 and 1 but not in 2; the shortest cycle 0 -> 1 -> 0 never takes it.
    const graph = graphOf(
      [['a'], ['a'], []],
      [
        [0, 'x', 1],
        [1, 'y', 0],
        [1, 'z', 2],
        [2, 'w', 0],
      ],
      [false, false, false],
    )
    const loop = findLasso(graph, 0, 0).lasso!.loop.map(([, s]) => s)
    expect(loop).toContain(2)
    expect(loop[loop.length - 1]).toBe(0)
  })
})
