import { type NodeId, sortNodeIds } from '@sd/transport'
import { type HeartbeatSettings, LeaderWatch } from '../detector/heartbeat.js'
import { snapshotFields } from '../restore.js'
import { idOrder, type RingOrder, sizeOnlyOrder } from '../ring/order.js'
import type { ChangRobertsMessage } from './messages.js'

type Election = Extract<ChangRobertsMessage, { type: 'election' }>

/**
 * Everything a Chang-Roberts member keeps in memory, in one object so that `snapshot()` reads it
 * all: a new field belongs here, and in the snapshot.
 */
export interface ChangRobertsState {
  /** The ring (from the options or ctx.peers at start: configuration, so its size stands for it). */
  order: RingOrder
  electionMs: number
  participant: boolean
  /** Resigned: relays the next election without standing in it. */
  standAside: boolean
  current: { leader: NodeId; term: number } | undefined
  /** The term of the last event emitted: events never go back. */
  lastTerm: number
  /** Leaders this member suspects; the ring passes over them until they are heard from. */
  suspected: Set<NodeId>
  /** A leader that resigned: no candidate until the next leader. */
  resigned: NodeId | undefined
  /** The last ELECTION this member sent, and to whom. */
  sent: { to: NodeId; msg: Election } | undefined
  watch: LeaderWatch
}

export function changRobertsState(self: NodeId, heartbeat: HeartbeatSettings): ChangRobertsState {
  return {
    order: idOrder(self, []),
    electionMs: 0,
    participant: false,
    standAside: false,
    current: undefined,
    lastTerm: 0,
    suspected: new Set(),
    resigned: undefined,
    sent: undefined,
    watch: new LeaderWatch(heartbeat),
  }
}

/** The state as canonical plain data: the suspected set sorted by id, absent as null. */
export function snapshotChangRoberts(s: ChangRobertsState) {
  return {
    ringSize: s.order.size,
    electionMs: s.electionMs,
    participant: s.participant,
    standAside: s.standAside,
    current: s.current === undefined ? null : { ...s.current },
    lastTerm: s.lastTerm,
    suspected: sortNodeIds([...s.suspected]),
    resigned: s.resigned ?? null,
    sent: s.sent === undefined ? null : { to: s.sent.to, msg: { ...s.sent.msg } },
    watch: s.watch.snapshot(),
  }
}

/**
 * Takes on the state `snapshotChangRoberts` gave (for `restore()`), but for the ring, which is
 * configuration (set again at the restored member's first step), and the watch, whose beat is
 * the protocol's (it returns the watch's snapshot).
 */
export function restoreChangRoberts(s: ChangRobertsState, snapshot: unknown): unknown {
  const fields = [
    'ringSize',
    'electionMs',
    'participant',
    'standAside',
    'current',
    'lastTerm',
    'suspected',
    'resigned',
    'sent',
    'watch',
  ] as const
  const v = snapshotFields(snapshot, 'changRoberts()', fields)
  const current = v.current as NonNullable<ChangRobertsState['current']> | null
  const sent = v.sent as NonNullable<ChangRobertsState['sent']> | null
  s.order = sizeOnlyOrder(v.ringSize as number)
  s.electionMs = v.electionMs as number
  s.participant = v.participant as boolean
  s.standAside = v.standAside as boolean
  s.current = current === null ? undefined : { ...current }
  s.lastTerm = v.lastTerm as number
  s.suspected = new Set(v.suspected as NodeId[])
  s.resigned = (v.resigned as NodeId | null) ?? undefined
  s.sent = sent === null ? undefined : { to: sent.to, msg: { ...sent.msg } }
  return v.watch
}
