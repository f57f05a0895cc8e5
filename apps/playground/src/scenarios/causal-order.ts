import {
  type CausalBroadcastRequest,
  type CausalEvent,
  CausalHistory,
  causalBroadcast,
} from '@sd/clocks'
import {
  InvalidArgumentError,
  isNonNegInt,
  type NodeId,
  SimNetwork,
  snapshotFields,
  type TraceEvent,
} from '@sd/transport'
import { planFaults } from '../fault-plan.js'
import type { Scenario, Unfinished } from '../scenario.js'
import { appendOnly, keepSideState } from '../side-state.js'
import { PAUSE_SLOW } from './lamport.js'

interface Delivered {
  node: NodeId
  t: number
  message: string
  from: NodeId
  clock: number[]
  local: number[]
  delayed: boolean
}

/** What the run reports, per event of the protocol (under `result.events`). */
type Happened =
  | { type: 'broadcast'; node: NodeId; t: number; message: string; clock: number[] }
  | ({ type: 'deliver' } & Delivered)
  | { type: 'buffered'; node: NodeId; t: number; message: string; clock: number[]; pending: number }

/**
 * Causal-order broadcast over links that reorder (1 to 80 ms): a few messages start at random
 * times and a third of the deliveries trigger a reply, so replies race the messages they answer.
 * The buffer holds a reply until what it answers is delivered. Checks against the ground truth
 * that no member delivers out of causal order, and that every live member delivers everything.
 * Crashed nodes are down from the start.
 */
export const causalOrder = {
  name: 'causal-order',
  title: 'causal-order broadcast over reordering links: replies never overtake what they answer',
  description:
    'Causal-order broadcast over links that reorder (1 to 80 ms). A few broadcasts start at random times and a third of the deliveries trigger a reply, so replies race the messages they answer; the buffer holds a reply until what it answers is delivered. Checks that no member delivers out of causal order and that every live member delivers everything.',
  crashes: 'crashed nodes are down from the start (t=0): they neither broadcast nor deliver',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 3,
  minN: 2,
  maxN: 16,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    const live = ids.filter((id) => !crash.includes(id))
    const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 80 }, fifo: false })
    let history = new CausalHistory()
    // The events recorded in `history`, in order: a rewind (the lab's) rebuilds it from these.
    const recorded: [NodeId, number[]][] = []
    const record = (node: NodeId, causes: number[] = []) => {
      recorded.push([node, causes])
      return history.record(node, causes)
    }
    const broadcastEvent = new Map<string, number>()
    const delivered = new Map<NodeId, string[]>(ids.map((id) => [id, []]))
    const events: Happened[] = []
    const labels = new Map<TraceEvent, string>()
    let made = 0
    let rand = seed >>> 0
    const random = () => {
      rand = (Math.imul(rand, 1664525) + 1013904223) >>> 0
      return rand / 4294967296
    }
    const broadcast = (node: NodeId, at?: number) => {
      made++
      net.request<CausalBroadcastRequest<string>>(node, { type: 'broadcast', payload: '' }, at)
    }

    const onEmit = (node: NodeId, event: CausalEvent<string>, t: number) => {
      const trace = net.trace[net.trace.length - 1]!
      if (event.type === 'broadcast') {
        const name = `m${String(node)}.${event.seq}`
        broadcastEvent.set(name, record(node))
        events.push({ type: 'broadcast', node, t, message: name, clock: event.clock })
        labels.set(trace, `${name} V=[${event.clock.join(',')}]`)
      } else if (event.type === 'deliver') {
        const name = `m${String(event.from)}.${event.seq}`
        delivered.get(node)!.push(name)
        const d: Delivered = {
          node,
          t,
          message: name,
          from: event.from,
          clock: event.clock,
          local: event.local,
          delayed: event.delayed,
        }
        events.push({ type: 'deliver', ...d })
        labels.set(
          trace,
          `${name}${event.delayed ? ' (was held)' : ''} V=[${event.local.join(',')}]`,
        )
        if (event.from !== node) {
          record(node, [broadcastEvent.get(name)!])
          // Answer a third of what arrives, up to a budget, so that causal chains form.
          if (made < 4 * n && random() < 0.34) broadcast(node)
        }
      } else if (event.type === 'buffered') {
        const name = `m${String(event.from)}.${event.seq}`
        events.push({
          type: 'buffered',
          node,
          t,
          message: name,
          clock: event.clock,
          pending: event.pending,
        })
        labels.set(trace, `hold ${name} W=[${event.clock.join(',')}]`)
      }
    }
    net.launch(ids, () => causalBroadcast<string>(), { onEmit })
    const lists = appendOnly([...delivered.values(), events, recorded])
    keepSideState(net, {
      // The random stream and the budget decide which deliveries are answered by a broadcast.
      save: () => ({
        made,
        rand,
        lists: lists.save(),
        names: [...broadcastEvent],
        labels: labels.size,
      }),
      restore(saved) {
        const s = snapshotFields(saved, 'causal-order side state', [
          'made',
          'rand',
          'lists',
          'names',
          'labels',
        ])
        const names = s.names
        if (
          !isNonNegInt(s.made) ||
          !isNonNegInt(s.rand) ||
          !isNonNegInt(s.labels) ||
          s.labels > labels.size ||
          !Array.isArray(names) ||
          !names.every((e) => Array.isArray(e) && typeof e[0] === 'string' && isNonNegInt(e[1]))
        )
          throw new InvalidArgumentError('causal-order side state: not what save() gave')
        lists.restore(s.lists)
        made = s.made
        rand = s.rand
        history = new CausalHistory()
        for (const [node, causes] of recorded) history.record(node, causes)
        broadcastEvent.clear()
        for (const [name, e] of names as [string, number][]) broadcastEvent.set(name, e)
        // Labels of trace entries the rewind removed (the map keeps insertion order).
        let k = 0
        for (const key of [...labels.keys()]) if (k++ >= s.labels) labels.delete(key)
      },
    })
    for (const id of crash) net.crash(id)
    // With every node down there is no one to start a broadcast.
    for (let i = 0; live.length > 0 && i < Math.max(2, n); i++)
      broadcast(live[Math.floor(random() * live.length)]!, Math.floor(random() * 30))
    planFaults(net, faults ?? [])
    net.run()

    const violations: string[] = []
    const unfinished: Unfinished[] = []
    const all = [...broadcastEvent.keys()]
    let held = 0
    for (const id of live) {
      const seq = delivered.get(id)!
      const missing = all.filter((m) => !seq.includes(m))
      for (const m of missing)
        unfinished.push({
          node: id,
          what: `${m} at node ${String(id)}`,
          why: 'never delivered: the links lose nothing, so it was held back for good or never sent',
          expected: false,
        })
      if (new Set(seq).size !== seq.length) violations.push(`node ${id} delivered a message twice`)
      const position = new Map(seq.map((m, i) => [m, i]))
      for (const m1 of all) {
        for (const m2 of all) {
          if (
            history.happenedBefore(broadcastEvent.get(m1)!, broadcastEvent.get(m2)!) &&
            position.has(m2) &&
            !(position.has(m1) && position.get(m1)! < position.get(m2)!)
          ) {
            violations.push(`node ${id} delivered ${m2} before ${m1}, which causally precedes it`)
          }
        }
      }
    }
    for (const e of events) if (e.type === 'deliver' && e.delayed) held++
    return {
      net,
      violations,
      liveness: { property: 'every live member delivers every broadcast', unfinished },
      annotate: (event) => labels.get(event),
      result: {
        events,
        broadcasts: all.length,
        heldBack: held,
        perNode: Object.fromEntries(delivered),
      },
      summary: [
        live.length === 0
          ? 'every node is down: nothing was broadcast'
          : `${all.length} broadcasts, ${held} deliveries held back until their causal past arrived`,
        ...live.map((id) => `node ${id} delivered: ${delivered.get(id)!.join(' ')}`),
      ],
    }
  },
} satisfies Scenario
