/**
 * Chandy-Misra-Haas on a given wait-for graph, one simulated node per process: the algorithm on
 * its own (AND model: a process waits for every process it has an edge to), without a lock
 * manager around it. Request `{ type: 'initiate' }` makes a blocked process send probe
 * (initiator, sender, receiver) along each of its waits; a blocked receiver forwards the first
 * probe of each initiator along each of its own waits; the initiator declares a deadlock when one
 * comes back. Each process forwards an initiator's probe once, so a detection costs at most one
 * message per edge reachable from the initiator. The waits are fixed for the run, as the AND
 * model's proof assumes of a deadlocked set; `{ type: 'set-waits' }` changes them between runs.
 */
import {
  arrayOf,
  isNodeId,
  messageParser,
  type NodeId,
  type Protocol,
  sortNodeIds,
} from '@sd/transport'
import type { DeadlockEvent, IgnoredEvent } from '../contract.js'

export type CmhGraphMsg = {
  type: 'probe'
  initiator: NodeId
  sender: NodeId
  receiver: NodeId
  /** The processes the probe went through, from the initiator. */
  path: NodeId[]
}

export type CmhGraphRequest = { type: 'initiate' } | { type: 'set-waits'; waitsFor: NodeId[] }

/**
 * `deadlock` when a probe returns; `no-deadlock-found` is never emitted (silence is the answer).
 * `ignored`: a message that is not a probe of the declared shape, dropped.
 */
export type CmhGraphEvent = DeadlockEvent | IgnoredEvent

const parseProbe = messageParser<CmhGraphMsg>({
  probe: {
    initiator: isNodeId,
    sender: isNodeId,
    receiver: isNodeId,
    path: arrayOf(isNodeId, { max: 1_000_000 }),
  },
})

export interface CmhGraphOptions {
  /** Who waits for whom: process → the processes it waits for. */
  waitsFor: ReadonlyMap<NodeId, readonly NodeId[]>
  /** Carry the path in probes (for the cycle in the event); off saves memory at scale. */
  recordPath?: boolean
}

/**
 * A process's whole volatile state (`snapshot()`, `restore()`): its waits in the order it sends
 * probes along them, the initiators it forwarded for (ascending: only membership counts), and
 * whether it declared since it last initiated.
 */
export interface CmhGraphSnapshot {
  waits: NodeId[]
  forwarded: NodeId[]
  declared: boolean
}

export function cmhOnGraph(options: CmhGraphOptions) {
  const recordPath = options.recordPath ?? true
  return (self: NodeId): Protocol<CmhGraphMsg, CmhGraphRequest, CmhGraphEvent> => {
    let waits: readonly NodeId[] = options.waitsFor.get(self) ?? []
    /** Initiators whose probe this process already forwarded. */
    const forwarded = new Set<NodeId>()
    /** One declaration per initiation, however many cycles bring the probe back. */
    let declared = false
    return {
      onRequest(req, ctx) {
        if (req.type === 'set-waits') {
          waits = req.waitsFor
          forwarded.clear()
          return
        }
        declared = false
        for (const to of waits)
          ctx.send(to, {
            type: 'probe',
            initiator: self,
            sender: self,
            receiver: to,
            path: recordPath ? [self] : [],
          })
      },
      onMessage(from, raw, ctx) {
        const probe = parseProbe(raw)
        if (typeof probe === 'string') return ctx.emit({ type: 'ignored', from, reason: probe })
        if (probe.initiator === self) {
          if (declared) return
          declared = true
          const cycle = recordPath && probe.path.length > 0 ? probe.path : [self]
          // The victim rule of this graph-only form: the highest id of the cycle.
          let victim = cycle[0]!
          for (const p of cycle) if (higherId(p, victim)) victim = p
          ctx.emit({ type: 'deadlock', cycle, victim })
          return
        }
        // An active process (no waits) ends the chase; so does a second probe of the initiator.
        if (waits.length === 0 || forwarded.has(probe.initiator)) return
        forwarded.add(probe.initiator)
        const path = recordPath ? [...probe.path, self] : probe.path
        for (const to of waits)
          ctx.send(to, {
            type: 'probe',
            initiator: probe.initiator,
            sender: self,
            receiver: to,
            path,
          })
      },
      snapshot: (): CmhGraphSnapshot => ({
        waits: [...waits],
        forwarded: sortNodeIds(forwarded),
        declared,
      }),
      restore(snapshot) {
        const s = snapshot as CmhGraphSnapshot
        waits = [...s.waits]
        forwarded.clear()
        for (const id of s.forwarded) forwarded.add(id)
        declared = s.declared
      },
    }
  }
}

function higherId(a: NodeId, b: NodeId): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a > b
  return String(a) > String(b)
}
