import {
  CausalHistory,
  compareLamport,
  DenseVectorClock,
  LamportClock,
  type LamportTimestamp,
} from '@sd/clocks'
import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  SimNetwork,
  type TraceEvent,
} from '@sd/transport'
import { planFaults } from '../fault-plan.js'
import type { Scenario, ScenarioOptions, Unfinished } from '../scenario.js'
import { keepSideState } from '../side-state.js'

/** An application message: it carries both clocks, as rule R2 of each asks. */
export interface AppMessage {
  type: 'app'
  lamport: number
  vector: number[]
}

/** One event of the execution, with every timestamp it got. */
export interface ClockedEvent {
  /** Position in the execution (causal order of recording). */
  index: number
  node: NodeId
  kind: 'internal' | 'send' | 'receive'
  /** Virtual time (ms). */
  t: number
  lamport: number
  vector: number[]
  /** For a send: the receiver. For a receive: the sender. */
  peer?: NodeId
  /** For a receive: the index of its send. */
  sendIndex?: number
  /** The trace event this one is drawn on (timer-fire, send or deliver). */
  trace: TraceEvent
}

export interface RandomExecution {
  net: SimNetwork
  ids: NodeId[]
  events: ClockedEvent[]
  /** Ground truth: happens-before by transitive closure over the recorded events. */
  history: CausalHistory
  /** Steps a live node did not take, messages to a live node never received. */
  unfinished: Unfinished[]
}

/** The liveness of a random execution: nothing planned is left undone at the end. */
export const EXECUTION_LIVENESS =
  'every live node takes its six steps, and every message sent to a live node is received'

const STEPS = 6
const INTERNAL = 0.3

/** --pause in the scenarios with no timeout: it only delays. */
export const PAUSE_SLOW =
  'a paused node only runs late: its held messages and timers are handled at its resume, and every check still applies'

/**
 * Random executions: every node performs STEPS actions at random intervals, each an internal
 * event (30%) or a send to a random peer; receives happen when messages arrive (non-FIFO links,
 * 2 to 40 ms). Each node runs a Lamport clock and a dense vector clock by the texts' rules.
 * Crashed nodes are down from the start.
 */
export function randomExecution({ n, seed, crash, faults }: ScenarioOptions): RandomExecution {
  const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 2, max: 40 }, fifo: false })
  const events: ClockedEvent[] = []
  let history = new CausalHistory()
  const sendOfMessage = new Map<number, number>()
  const lastTrace = () => net.trace[net.trace.length - 1]!

  // A step's sends leave when its handler returns, so a send's trace entry is found after the
  // run; message ids count up from 1 in the order sent, and only this protocol sends.
  let sends = 0
  const sendTraces = new Map<number, ClockedEvent>()
  const record = (e: Omit<ClockedEvent, 'index' | 't' | 'trace'>): void => {
    const trace = lastTrace()
    const index = events.length
    let sendIndex: number | undefined
    if (e.kind === 'send') sendOfMessage.set(++sends, index)
    else if (trace.type === 'deliver') sendIndex = sendOfMessage.get(trace.id)
    history.record(e.node, sendIndex === undefined ? [] : [sendIndex])
    const event: ClockedEvent = {
      ...e,
      index,
      t: net.now,
      trace,
      ...(sendIndex === undefined ? {} : { sendIndex }),
    }
    if (e.kind === 'send') sendTraces.set(sends, event)
    events.push(event)
  }

  net.launch<AppMessage>(ids, (self) => {
    const lamport = new LamportClock({ pid: self })
    let vector = new DenseVectorClock(n, ids.indexOf(self))
    let steps = 0
    const next = (ctx: Ctx<AppMessage>) => ctx.setTimer('step', 5 + Math.floor(ctx.random() * 20))
    return {
      start: next,
      onTimer(_key, ctx) {
        steps++
        if (ctx.random() < INTERNAL) {
          lamport.tick()
          vector.tick()
          record({ node: self, kind: 'internal', lamport: lamport.time, vector: vector.toArray() })
        } else {
          const peer = ctx.peers[Math.floor(ctx.random() * ctx.peers.length)]!
          const time = lamport.send()
          vector.tick()
          ctx.send(peer, { type: 'app', lamport: time, vector: vector.toArray() })
          record({ node: self, kind: 'send', peer, lamport: time, vector: vector.toArray() })
        }
        if (steps < STEPS) next(ctx)
      },
      onMessage(from, msg) {
        lamport.receive(msg.lamport)
        vector.receive(msg.vector)
        record({
          node: self,
          kind: 'receive',
          peer: from,
          lamport: lamport.time,
          vector: vector.toArray(),
        })
      },
      // Both clocks and the steps taken: all a node keeps (its timer and random stream are the
      // simulator's), so the lab can rewind the run from a checkpoint.
      snapshot: () => ({ lamport: lamport.time, vector: vector.toArray(), steps }),
      restore(snapshot) {
        const s = executionNodeState(snapshot, n)
        lamport.restore(s.lamport)
        vector = DenseVectorClock.from(s.vector, ids.indexOf(self))
        steps = s.steps
      },
    }
  })
  // What the run has recorded so far, cut back to where a checkpoint was saved: the events and
  // sends counted (the maps keyed by send number drop the later ones), the ground truth rebuilt.
  keepSideState(net, {
    save: () => ({ events: events.length, sends }),
    restore(saved) {
      const { events: length, sends: sent } = savedCounts(saved, events.length, sends)
      events.length = length
      sends = sent
      for (const map of [sendOfMessage, sendTraces])
        for (const k of map.keys()) if (k > sent) map.delete(k)
      history = new CausalHistory()
      for (const e of events) history.record(e.node, e.sendIndex === undefined ? [] : [e.sendIndex])
    },
  })
  for (const id of crash) net.crash(id)
  planFaults(net, faults ?? [])
  net.run()
  for (const trace of net.trace) {
    const event = trace.type === 'send' ? sendTraces.get(trace.id) : undefined
    if (event !== undefined) event.trace = trace
  }
  return { net, ids, events, history, unfinished: executionLeftovers(net, ids, crash, events) }
}

/** A random execution node's snapshot, checked before it is taken on. */
function executionNodeState(
  snapshot: unknown,
  n: number,
): { lamport: number; vector: number[]; steps: number } {
  const s = snapshot as { lamport?: unknown; vector?: unknown; steps?: unknown } | null
  const whole = (v: unknown, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max
  if (
    typeof s !== 'object' ||
    s === null ||
    !whole(s.lamport, Number.MAX_SAFE_INTEGER) ||
    !whole(s.steps, STEPS) ||
    !Array.isArray(s.vector) ||
    s.vector.length !== n ||
    !s.vector.every((v) => whole(v, Number.MAX_SAFE_INTEGER))
  )
    throw new InvalidArgumentError(
      `random execution: a node's snapshot is { lamport, vector of ${n}, steps up to ${STEPS} }`,
    )
  return s as { lamport: number; vector: number[]; steps: number }
}

/** A saved side state of a random execution: counts no larger than what the run holds now. */
function savedCounts(
  saved: unknown,
  events: number,
  sends: number,
): { events: number; sends: number } {
  const s = saved as { events?: unknown; sends?: unknown } | null
  const within = (v: unknown, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max
  if (typeof s !== 'object' || s === null || !within(s.events, events) || !within(s.sends, sends))
    throw new InvalidArgumentError(
      `random execution: side state is { events up to ${events}, sends up to ${sends} }`,
    )
  return s as { events: number; sends: number }
}

/** What a random execution left undone: steps of live nodes not taken, messages not received. */
function executionLeftovers(
  net: SimNetwork,
  ids: readonly NodeId[],
  crash: readonly NodeId[],
  events: readonly ClockedEvent[],
): Unfinished[] {
  const unfinished: Unfinished[] = []
  for (const id of ids) {
    if (crash.includes(id)) continue
    const steps = events.filter((e) => e.node === id && e.kind !== 'receive').length
    if (steps < STEPS)
      unfinished.push({
        node: id,
        what: `steps of node ${String(id)}`,
        why: `it took ${steps} of ${STEPS} before the run went quiet`,
        expected: false,
      })
  }
  const received = new Set(net.trace.flatMap((e) => (e.type === 'deliver' ? [e.id] : [])))
  for (const e of net.trace) {
    if (e.type !== 'send' || crash.includes(e.to) || received.has(e.id)) continue
    unfinished.push({
      node: e.to,
      what: `message #${e.id} from ${String(e.from)} to ${String(e.to)}`,
      why: 'never received, though the links lose nothing and the receiver is up',
      expected: false,
    })
  }
  return unfinished
}

/** Labels for the diagram: the trace event an execution event is drawn on gets its clock. */
export function annotator(
  events: readonly ClockedEvent[],
  label: (e: ClockedEvent) => string,
): (event: TraceEvent) => string | undefined {
  const labels = new Map<TraceEvent, string>()
  for (const e of events) labels.set(e.trace, (e.kind === 'internal' ? 'internal ' : '') + label(e))
  return (event) => labels.get(event)
}

/** The plain-JSON form of an event for `result.events`. */
export function eventJSON<Extra extends object>(e: ClockedEvent, extra: Extra) {
  return {
    index: e.index,
    node: e.node,
    kind: e.kind,
    t: e.t,
    ...(e.peer === undefined ? {} : e.kind === 'send' ? { to: e.peer } : { from: e.peer }),
    ...(e.sendIndex === undefined ? {} : { sendIndex: e.sendIndex }),
    ...extra,
  }
}

/**
 * Lamport clocks on a random execution. Checks the clock condition (a -> b implies C(a) < C(b))
 * against the ground truth, shows the total order (T, pid), and counts the concurrent pairs that
 * the scalar clock nevertheless orders (it is not strongly consistent).
 */
export const lamport = {
  name: 'lamport',
  title: 'Lamport clocks on a random execution: clock condition and the total order (T, pid)',
  description:
    'Every node performs six steps at random intervals: an internal event or a send to a random peer, over links that reorder (2 to 40 ms). Each event is labelled with its Lamport clock C. Checks the clock condition (a -> b implies C(a) < C(b)) against the true happened-before, shows the total order (T, pid), and counts the concurrent pairs the scalar clock orders anyway.',
  crashes: 'crashed nodes are down from the start (t=0): they take no step',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 3,
  minN: 2,
  maxN: 32,
  run(options) {
    const { net, events, history, unfinished } = randomExecution(options)
    const violations: string[] = []
    let ordered = 0
    let concurrentButSmaller = 0
    for (const a of events) {
      for (const b of events) {
        if (history.happenedBefore(a.index, b.index)) {
          ordered++
          if (!(a.lamport < b.lamport)) {
            violations.push(
              `clock condition broken: event ${a.index} -> event ${b.index} but C = ${a.lamport} >= ${b.lamport}`,
            )
          }
        } else if (history.concurrent(a.index, b.index) && a.lamport < b.lamport) {
          concurrentButSmaller++
        }
      }
    }
    const stamp = (e: ClockedEvent): LamportTimestamp => ({ time: e.lamport, pid: e.node })
    const totalOrder = [...events]
      .sort((a, b) => compareLamport(stamp(a), stamp(b)))
      .map((e) => ({ index: e.index, timestamp: stamp(e) }))
    for (let i = 1; i < totalOrder.length; i++) {
      if (compareLamport(totalOrder[i - 1]!.timestamp, totalOrder[i]!.timestamp) === 0) {
        violations.push(
          `two events share the timestamp ${JSON.stringify(totalOrder[i]!.timestamp)}`,
        )
      }
    }
    return {
      net,
      violations,
      liveness: { property: EXECUTION_LIVENESS, unfinished },
      annotate: annotator(events, (e) => `C=${e.lamport}`),
      result: {
        events: events.map((e) => eventJSON(e, { lamport: e.lamport, timestamp: stamp(e) })),
        totalOrder: totalOrder.map((e) => e.index),
        causallyOrderedPairs: ordered,
        concurrentPairsWithSmallerC: concurrentButSmaller,
      },
      summary: [
        `${events.length} events; clock condition checked on ${ordered} causally ordered pairs`,
        `total order (T, pid): ${totalOrder
          .slice(0, 12)
          .map((e) => `(${e.timestamp.time},${String(e.timestamp.pid)})`)
          .join(' < ')}${totalOrder.length > 12 ? ' < …' : ''}`,
        `${concurrentButSmaller} concurrent pairs have C(a) < C(b) anyway: Lamport clocks are not strongly consistent (see sd run vector)`,
      ],
    }
  },
} satisfies Scenario
