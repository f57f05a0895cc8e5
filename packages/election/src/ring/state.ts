import { type NodeId, sortNodeIds } from '@sd/transport'
import { type HeartbeatSettings, LeaderWatch } from '../detector/heartbeat.js'
import { snapshotFields } from '../restore.js'
import type { Pass } from './messages.js'
import { idOrder, type RingOrder, sizeOnlyOrder } from './order.js'

/**
 * Everything a ring member keeps in memory, in one object so that `snapshot()` reads it all: a
 * new field belongs here, and in the snapshot.
 */
export interface RingState {
  /** The ring (from self and ctx.peers at start: configuration, so its size stands for it). */
  order: RingOrder
  electionMs: number
  /** The leader followed now (undefined while electing or after a suspicion). */
  current: { leader: NodeId; term: number } | undefined
  /** The term of the last event emitted: events never go back. */
  lastTerm: number
  /** Took part in an election whose COORDINATOR has not come yet. */
  electing: boolean
  /** The round of this member's own ELECTION still out. */
  round: number | undefined
  /** The last election this member closed for a crashed initiator (duplicates are dropped). */
  lastClosed: { initiator: NodeId; round: number } | undefined
  /** Resigned: not a candidate in the next election. */
  standAside: boolean
  /** The ring of the last COORDINATOR (ascending); members outside it are skipped. */
  members: readonly NodeId[] | undefined
  /** Successors that did not acknowledge a pass. */
  dead: Set<NodeId>
  /** Members outside `members` heard from. */
  back: Set<NodeId>
  /** Passes waiting for their ACK, by hop number. */
  passes: Map<number, { to: NodeId; pass: Pass }>
  hopSeq: number
  watch: LeaderWatch
}

export function ringState(self: NodeId, heartbeat: HeartbeatSettings): RingState {
  return {
    order: idOrder(self, []),
    electionMs: 0,
    current: undefined,
    lastTerm: 0,
    electing: false,
    round: undefined,
    lastClosed: undefined,
    standAside: false,
    members: undefined,
    dead: new Set(),
    back: new Set(),
    passes: new Map(),
    hopSeq: 0,
    watch: new LeaderWatch(heartbeat),
  }
}

/** The state as canonical plain data: sets sorted by id, passes by hop, absent as null. */
export function snapshotRing(s: RingState) {
  return {
    ringSize: s.order.size,
    electionMs: s.electionMs,
    current: s.current === undefined ? null : { ...s.current },
    lastTerm: s.lastTerm,
    electing: s.electing,
    round: s.round ?? null,
    lastClosed: s.lastClosed === undefined ? null : { ...s.lastClosed },
    standAside: s.standAside,
    members: s.members === undefined ? null : [...s.members],
    dead: sortNodeIds([...s.dead]),
    back: sortNodeIds([...s.back]),
    passes: [...s.passes]
      .sort(([a], [b]) => a - b)
      .map(([hop, { to, pass }]) => ({ hop, to, pass: structuredClone(pass) })),
    hopSeq: s.hopSeq,
    watch: s.watch.snapshot(),
  }
}

/**
 * Takes on the state `snapshotRing` gave (for `restore()`), but for the ring itself, which is
 * configuration (ctx.peers, set again at the restored member's first step), and the watch, whose
 * beat is the protocol's (it returns the watch's snapshot).
 */
export function restoreRing(s: RingState, snapshot: unknown): unknown {
  const fields = [
    'ringSize',
    'electionMs',
    'current',
    'lastTerm',
    'electing',
    'round',
    'lastClosed',
    'standAside',
    'members',
    'dead',
    'back',
    'passes',
    'hopSeq',
    'watch',
  ] as const
  const v = snapshotFields(snapshot, 'ringElection()', fields)
  const current = v.current as NonNullable<RingState['current']> | null
  const lastClosed = v.lastClosed as NonNullable<RingState['lastClosed']> | null
  s.order = sizeOnlyOrder(v.ringSize as number)
  s.electionMs = v.electionMs as number
  s.current = current === null ? undefined : { ...current }
  s.lastTerm = v.lastTerm as number
  s.electing = v.electing as boolean
  s.round = (v.round as number | null) ?? undefined
  s.lastClosed = lastClosed === null ? undefined : { ...lastClosed }
  s.standAside = v.standAside as boolean
  s.members = v.members === null ? undefined : [...(v.members as NodeId[])]
  s.dead = new Set(v.dead as NodeId[])
  s.back = new Set(v.back as NodeId[])
  type Saved = { hop: number; to: NodeId; pass: Pass }
  s.passes = new Map(
    (v.passes as Saved[]).map(({ hop, to, pass }) => [hop, { to, pass: structuredClone(pass) }]),
  )
  s.hopSeq = v.hopSeq as number
  return v.watch
}
