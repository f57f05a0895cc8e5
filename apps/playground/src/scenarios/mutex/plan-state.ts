/**
 * What a mutex plan's run keeps beside its network, for the lab's checkpoints: the requests made
 * (and which were served), the queue of requests each node waits on (an entry takes the first,
 * and its `hold` plans the release: the run reads these), the entries, the ones open, and how many
 * events were collected. Saved as plain data, objects shared between the lists as indexes.
 */
import { InvalidArgumentError, isNodeId, type NodeId, snapshotFields } from '@sd/transport'
import { appendOnly, type SideState } from '../../side-state.js'
import type { Asked, Entry } from './run.js'

type Optional = number | null

export function mutexPlanState(parts: {
  asked: Asked[]
  waiting: Map<NodeId, Asked[]>
  entries: Entry[]
  open: Map<NodeId, Entry>
  events: unknown[]
}): SideState {
  const { asked, waiting, entries, open } = parts
  const events = appendOnly([parts.events])
  return {
    save: () => ({
      asked: asked.map((a) => [a.node, a.at, a.hold, a.servedAt ?? null]),
      waiting: [...waiting].map(([node, list]) => [node, list.map((a) => asked.indexOf(a))]),
      entries: entries.map((e) => [e.node, e.askedAt, e.enteredAt, e.releasedAt ?? null]),
      open: [...open].map(([node, e]) => [node, entries.indexOf(e)]),
      events: events.save(),
    }),
    restore(saved) {
      const s = snapshotFields(saved, 'mutex plan side state', [
        'asked',
        'waiting',
        'entries',
        'open',
        'events',
      ])
      const madeAsked = rows(s.asked, 'asked').map(([node, at, hold, servedAt]) => ({
        node: nodeId(node),
        at: finite(at),
        hold: finite(hold),
        ...(servedAt === null ? {} : { servedAt: finite(servedAt) }),
      }))
      const madeEntries: Entry[] = rows(s.entries, 'entries').map(
        ([node, askedAt, enteredAt, releasedAt]) => ({
          node: nodeId(node),
          askedAt: finite(askedAt),
          enteredAt: finite(enteredAt),
          releasedAt: releasedAt === null ? undefined : finite(releasedAt),
        }),
      )
      const madeWaiting = pairs(s.waiting, 'waiting').map(([node, list]) => {
        if (!Array.isArray(list)) throw bad('waiting')
        return [nodeId(node), list.map((i) => at(madeAsked, i))] as const
      })
      const madeOpen = pairs(s.open, 'open').map(
        ([node, i]) => [nodeId(node), at(madeEntries, i)] as const,
      )
      events.restore(s.events)
      asked.splice(0, asked.length, ...madeAsked)
      entries.splice(0, entries.length, ...madeEntries)
      waiting.clear()
      for (const [node, list] of madeWaiting) waiting.set(node, list)
      open.clear()
      for (const [node, entry] of madeOpen) open.set(node, entry)
    },
  }
}

const bad = (what: string) =>
  new InvalidArgumentError(`mutex plan side state: ${what} is not what save() gave`)

function rows(value: unknown, what: string): [unknown, unknown, unknown, Optional][] {
  if (!Array.isArray(value) || !value.every((r) => Array.isArray(r) && r.length === 4))
    throw bad(what)
  return value as [unknown, unknown, unknown, Optional][]
}

function pairs(value: unknown, what: string): [unknown, unknown][] {
  if (!Array.isArray(value) || !value.every((r) => Array.isArray(r) && r.length === 2))
    throw bad(what)
  return value as [unknown, unknown][]
}

function nodeId(value: unknown): NodeId {
  if (!isNodeId(value)) throw bad('a node id')
  return value
}

function finite(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('a time')
  return value
}

function at<T>(list: readonly T[], i: unknown): T {
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= list.length)
    throw bad('an index')
  return list[i]!
}
