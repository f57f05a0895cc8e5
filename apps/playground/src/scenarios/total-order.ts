import {
  type LamportTimestamp,
  type TotalOrderEvent,
  type TotalOrderRequest,
  totalOrderBroadcast,
} from '@sd/clocks'
import { type NodeId, SimNetwork, type TraceEvent } from '@sd/transport'
import { planFaults } from '../fault-plan.js'
import type { Scenario, Unfinished } from '../scenario.js'
import { addOnlyMaps, appendOnly, keepSideState, together } from '../side-state.js'
import { PAUSE_SLOW } from './lamport.js'

const stamp = (ts: LamportTimestamp) => `(${ts.time},${String(ts.pid)})`

/**
 * Totally ordered broadcast with Lamport timestamps and acknowledgements. Several members
 * broadcast at the same instants over reordering links (2 to 30 ms); every member must deliver
 * the same sequence, the (T, pid) order. With `--crash`, the crashed member never acknowledges
 * and delivery stops: the algorithm is not fault tolerant, and the run shows it.
 */
export const totalOrder = {
  name: 'total-order',
  title:
    'total-order broadcast (Lamport timestamps + acks): every member delivers the same sequence',
  description:
    'Totally ordered broadcast with Lamport timestamps and acknowledgements. In two rounds (t=0 and t=20 ms) several members broadcast at the same instant over reordering links (2 to 30 ms); every member must deliver the same sequence, in (T, pid) order.',
  crashes:
    'crashed members are down from the start (t=0): they never acknowledge, so delivery blocks (the algorithm is not fault tolerant), but no member may deliver out of order',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 3,
  minN: 2,
  maxN: 16,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    const live = ids.filter((id) => !crash.includes(id))
    const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 2, max: 30 }, fifo: false })
    const sequences = new Map<NodeId, string[]>(ids.map((id) => [id, []]))
    const events: Record<string, unknown>[] = []
    const labels = new Map<TraceEvent, string>()
    const sent: string[] = []
    const onEmit = (node: NodeId, event: TotalOrderEvent<string>, t: number) => {
      const trace = net.trace[net.trace.length - 1]!
      if (event.type === 'broadcast') {
        sent.push(event.payload)
        events.push({
          type: 'broadcast',
          node,
          t,
          message: event.payload,
          timestamp: event.timestamp,
        })
        labels.set(trace, `T=${stamp(event.timestamp)}`)
      } else if (event.type === 'deliver') {
        sequences.get(node)!.push(event.payload)
        events.push({
          type: 'deliver',
          node,
          t,
          message: event.payload,
          index: event.index,
          timestamp: event.timestamp,
        })
        labels.set(trace, `#${event.index} ${event.payload} T=${stamp(event.timestamp)}`)
      }
    }
    net.launch(ids, () => totalOrderBroadcast<string>(), { onEmit })
    // The lists only grow, and a label is set once on each step's trace entry.
    keepSideState(
      net,
      together([appendOnly([sent, events, ...sequences.values()]), addOnlyMaps([labels])]),
    )
    for (const id of crash) net.crash(id)
    // Two rounds; in each, a random half of the live members broadcast at the same instant.
    let rand = seed >>> 0
    const random = () => {
      rand = (Math.imul(rand, 1664525) + 1013904223) >>> 0
      return rand / 4294967296
    }
    let k = 0
    for (const at of [0, 20]) {
      for (const id of live) {
        if (random() < 0.5 || id === live[0]) {
          k++
          net.request<TotalOrderRequest<string>>(
            id,
            { type: 'broadcast', payload: `m${k}@${String(id)}` },
            at,
          )
        }
      }
    }
    planFaults(net, faults ?? [])
    net.run()

    const violations: string[] = []
    const unfinished: Unfinished[] = []
    // With every member down nothing is broadcast: the reference is the empty sequence.
    const reference = live.length > 0 ? sequences.get(live[0]!)! : []
    for (const id of live) {
      const seq = sequences.get(id)!
      const common = Math.min(seq.length, reference.length)
      for (let i = 0; i < common; i++) {
        if (seq[i] !== reference[i]) {
          violations.push(
            `node ${id} delivered ${seq[i]} at position ${i}, node ${live[0]} delivered ${reference[i]}`,
          )
          break
        }
      }
      if (seq.length < sent.length)
        unfinished.push({
          node: id,
          what: `${sent.length - seq.length} of ${sent.length} broadcasts at node ${String(id)}`,
          why:
            crash.length > 0
              ? `blocked by design: delivery waits for an acknowledgement from every member, and crashed ${crash.join(', ')} never sends one (the algorithm is not fault tolerant)`
              : 'never delivered, though every member is up and the links lose nothing',
          expected: crash.length > 0,
        })
    }
    const blocked = crash.length > 0 && live.some((id) => sequences.get(id)!.length < sent.length)
    return {
      net,
      violations,
      liveness: {
        property:
          'every live member delivers every broadcast (with a crashed member, delivery blocks by design)',
        unfinished,
      },
      annotate: (event) => labels.get(event),
      result: {
        events,
        broadcasts: sent.length,
        sequences: Object.fromEntries(sequences),
        identical:
          violations.length === 0 &&
          live.every((id) => sequences.get(id)!.length === reference.length),
        blockedByCrash: blocked,
      },
      summary: [
        ...live.map((id) => `node ${id} delivered: ${sequences.get(id)!.join(' ') || '(nothing)'}`),
        live.length === 0
          ? 'every member is down: nothing was broadcast'
          : blocked
            ? `crashed member(s) ${crash.join(', ')} never acknowledge: delivery is blocked (Lamport's total order is not fault tolerant), but no member delivered out of order`
            : `all ${live.length} members delivered the same ${reference.length} messages in (T, pid) order; ${n * (n - 1)} messages per broadcast`,
      ],
    }
  },
} satisfies Scenario
