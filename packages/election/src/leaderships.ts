/**
 * When each node led, and on which side of the network, read from a run's emitted events and its
 * faults (the simulator's trace, or the same shapes written for real processes): the inputs of the
 * "never two leaders at once" and "no leader on a minority side" checks of `checkElection`.
 */
import type { EmittedEvent, FaultEvent, NodeId } from '@sd/transport'
import { eventFields } from './event-fields.js'

/** One stretch during which `node` believed it led `term`: [from, to). */
export interface Leadership {
  node: NodeId
  term: number
  from: number
  to: number
}

/** Whom a node could reach during [from, to): the running members on its side, itself included. */
export interface Reach {
  from: number
  to: number
  reachable: NodeId[]
}

type Entry = { t: number; rank: number; fault?: FaultEvent; emitted?: EmittedEvent }

/**
 * Emitted events and faults in one order. Both come from the same run but in two lists, so a tie
 * in time is broken by what can happen: a node restarts or resumes before it emits, and emits
 * before it is paused or crashes at that same moment.
 */
function merged(events: readonly EmittedEvent[], faults: readonly FaultEvent[]): Entry[] {
  const rankOf = (f: FaultEvent) => (f.type === 'pause' || f.type === 'crash' ? 2 : 0)
  const all: Entry[] = [
    ...faults.map((fault) => ({ t: fault.t, rank: rankOf(fault), fault })),
    ...events.map((emitted) => ({ t: emitted.t, rank: 1, emitted })),
  ]
  // Array.prototype.sort is stable: entries of one kind keep their order.
  return all.sort((a, b) => a.t - b.t || a.rank - b.rank)
}

/**
 * A node leads from its `leader` event naming itself until its `stepped-down` / `leader-lost`, a
 * `leader` event naming another node, its crash, or its pause (a paused process acts on nothing).
 * After a resume it leads again only once it shows it: a new `leader` event, or a `lease` event
 * of the majority mode (a resumed leader whose lease still runs renews it at its next heartbeat).
 */
export function leaderships(
  events: readonly EmittedEvent[],
  faults: readonly FaultEvent[],
  end: number,
): Leadership[] {
  const open = new Map<NodeId, { term: number; from: number }>()
  const out: Leadership[] = []
  const close = (node: NodeId, t: number) => {
    const lead = open.get(node)
    if (lead === undefined) return
    out.push({ node, term: lead.term, from: lead.from, to: t })
    open.delete(node)
  }
  for (const { t, fault, emitted } of merged(events, faults)) {
    if (fault !== undefined) {
      if (fault.type === 'pause' || fault.type === 'crash') close(fault.node, t)
      continue
    }
    const { node } = emitted!
    const e = eventFields(emitted!.event)
    if (e === undefined || typeof e.term !== 'number') continue
    if (e.type === 'leader') {
      const current = open.get(node)
      if (e.leader !== node || current?.term !== e.term) close(node, t)
      if (e.leader === node && !open.has(node)) open.set(node, { term: e.term, from: t })
    } else if (e.type === 'stepped-down' || e.type === 'leader-lost') {
      close(node, t)
    } else if (e.type === 'lease' && !open.has(node)) {
      open.set(node, { term: e.term, from: t })
    }
  }
  for (const node of [...open.keys()]) close(node, Math.max(end, open.get(node)!.from))
  return out.sort((a, b) => a.from - b.from)
}

/** Every pair of leaderships of two nodes that overlap for a positive time. */
export function overlaps(
  leads: readonly Leadership[],
): Array<{ a: Leadership; b: Leadership; from: number; to: number }> {
  const out: Array<{ a: Leadership; b: Leadership; from: number; to: number }> = []
  const active: Leadership[] = []
  for (const lead of leads) {
    // Sorted by `from`: whatever ended by now cannot overlap this or any later one.
    for (let i = active.length - 1; i >= 0; i--) if (active[i]!.to <= lead.from) active.splice(i, 1)
    for (const other of active) {
      if (other.node === lead.node) continue
      const from = lead.from
      const to = Math.min(lead.to, other.to)
      if (to > from) out.push({ a: other, b: lead, from, to })
    }
    active.push(lead)
  }
  return out
}

/** The members: given, or every node an event or a fault names. */
export function membersOf(
  events: readonly EmittedEvent[],
  faults: readonly FaultEvent[],
): NodeId[] {
  const ids = new Set<NodeId>()
  for (const e of events) ids.add(e.node)
  for (const f of faults) {
    if ('node' in f) ids.add(f.node)
    if (f.type === 'partition') for (const g of f.groups) for (const id of g) ids.add(id)
  }
  return [...ids]
}

/**
 * Per node, who it could reach over time: the running members on its side of the partition,
 * itself included (none while it is crashed or paused), as segments [from, to) between faults.
 * As in the simulator, members a partition does not list form one more side together.
 */
export function reachability(
  members: readonly NodeId[],
  faults: readonly FaultEvent[],
  end: number,
): Map<NodeId, Reach[]> {
  const side = new Map<NodeId, number>(members.map((id) => [id, -1]))
  const stopped = new Set<NodeId>()
  const out = new Map<NodeId, Reach[]>(members.map((id) => [id, []]))
  let from = Number.NEGATIVE_INFINITY
  const close = (to: number) => {
    if (to <= from) return
    for (const node of members) {
      const reachable = stopped.has(node)
        ? []
        : members.filter((id) => !stopped.has(id) && side.get(id) === side.get(node))
      out.get(node)!.push({ from, to, reachable })
    }
    from = to
  }
  for (const f of [...faults].sort((a, b) => a.t - b.t)) {
    if (!['partition', 'heal', 'crash', 'pause', 'restart', 'resume'].includes(f.type)) continue
    close(f.t)
    if (f.type === 'partition') {
      for (const id of members) side.set(id, -1)
      f.groups.forEach((group, i) => {
        for (const id of group) side.set(id, i)
      })
    } else if (f.type === 'heal') {
      for (const id of members) side.set(id, -1)
    } else if (f.type === 'crash' || f.type === 'pause') stopped.add(f.node)
    else if (f.type === 'restart' || f.type === 'resume') stopped.delete(f.node)
  }
  close(Math.max(end, from) + 1)
  return out
}

/**
 * The moments of [lead.from, lead.to) at which `lead.node` had not been able to reach a majority
 * at any moment of the last `graceMs` (each member at its own moment, as a lease counts acks):
 * where such a moment exists, the earliest, with whom it could reach in that window.
 */
export function ledInMinority(
  lead: Leadership,
  reach: readonly Reach[],
  majority: number,
  graceMs: number,
): { t: number; reachable: NodeId[] } | undefined {
  // The union over the window [t - graceMs, t] only shrinks when a segment leaves it.
  const moments = [lead.from, ...reach.map((r) => r.to + graceMs)]
    .filter((t) => t >= lead.from && t < lead.to)
    .sort((a, b) => a - b)
  for (const t of moments) {
    const seen = new Set<NodeId>()
    for (const r of reach) {
      if (r.from <= t && r.to > t - graceMs) for (const id of r.reachable) seen.add(id)
    }
    if (seen.size < majority) return { t, reachable: [...seen] }
  }
  return undefined
}
