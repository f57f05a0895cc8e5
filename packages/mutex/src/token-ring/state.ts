import type { NodeId } from '@sd/transport'
import { idSet, orNull, type Snapshot } from '../snapshot.js'
import type { TokenRingMessage, TokenState } from './messages.js'

type RegenMessage = Extract<TokenRingMessage, { type: 'regen' }>

/**
 * Everything a token ring node keeps in memory, in one object, so `snapshot()` reads all of it
 * (a field added here is one the snapshot must show: `snapshotOf` names every field).
 */
export interface TokenRingState {
  /** The ring this node passes along: its view's members, less the nodes found crashed. */
  view: NodeId[]
  /** The highest view installed here or carried by a token seen here (0: the group started with). */
  viewNo: number
  /** The members of view `viewNo`, ascending: the ring a token of an older view is given here. */
  viewMembers: NodeId[]
  lostMs: number
  /** The token, when this node holds it and may use it. */
  token: TokenState | undefined
  inSection: boolean
  entryToken: number
  wants: number
  passSeq: number
  hopSeq: number
  /** A pass sent and not yet acknowledged: the token is neither here nor there. */
  pending: { to: NodeId; pass: number; state: TokenState; tries: number } | undefined
  lastCommit: { to: NodeId; pass: number } | undefined
  /** A token received and acknowledged, not yet committed by its sender. */
  incoming: { from: NodeId; pass: number; state: TokenState; tries: number } | undefined
  lastTaken: { from: NodeId; pass: number } | undefined
  /** Tokens of a generation below this are destroyed on sight. */
  floor: number
  /** Highest generation of a token this node accepted. */
  tokenGen: number
  /** Highest election started or forwarded here. */
  best: { generation: number; initiator: NodeId } | undefined
  /** Elections stopped while a token was arriving here, applied if it is committed to us. */
  stopped: { generation: number; live: NodeId[] } | undefined
  peers: readonly NodeId[]
  regenPending:
    | { to: NodeId; hop: number; msg: Omit<RegenMessage, 'hop'>; tries: number }
    | undefined
}

export function initialState(self: NodeId): TokenRingState {
  return {
    view: [self],
    viewNo: 0,
    viewMembers: [self],
    lostMs: 0,
    token: undefined,
    inSection: false,
    entryToken: 0,
    wants: 0,
    passSeq: 0,
    hopSeq: 0,
    pending: undefined,
    lastCommit: undefined,
    incoming: undefined,
    lastTaken: undefined,
    floor: 0,
    tokenGen: -1,
    best: undefined,
    stopped: undefined,
    peers: [],
    regenPending: undefined,
  }
}

const tokenOf = (t: TokenState): Snapshot => ({
  generation: t.generation,
  count: t.count,
  members: [...t.members], // kept ascending by the protocol
  view: t.view ?? 0,
})

/** The state as canonical plain data (see `Protocol.snapshot`). */
export function snapshotOf(s: TokenRingState): Snapshot {
  return {
    view: [...s.view], // kept ascending by the protocol
    viewNo: s.viewNo,
    viewMembers: [...s.viewMembers], // kept ascending
    lostMs: s.lostMs,
    token: orNull(s.token, tokenOf),
    inSection: s.inSection,
    entryToken: s.entryToken,
    wants: s.wants,
    passSeq: s.passSeq,
    hopSeq: s.hopSeq,
    pending: orNull(s.pending, (p) => ({
      to: p.to,
      pass: p.pass,
      state: tokenOf(p.state),
      tries: p.tries,
    })),
    lastCommit: orNull(s.lastCommit, (c) => ({ to: c.to, pass: c.pass })),
    incoming: orNull(s.incoming, (i) => ({
      from: i.from,
      pass: i.pass,
      state: tokenOf(i.state),
      tries: i.tries,
    })),
    lastTaken: orNull(s.lastTaken, (t) => ({ from: t.from, pass: t.pass })),
    floor: s.floor,
    tokenGen: s.tokenGen,
    best: orNull(s.best, (b) => ({ generation: b.generation, initiator: b.initiator })),
    // Only ever read as a set (who to take back into the ring).
    stopped: orNull(s.stopped, (st) => ({
      generation: st.generation,
      live: idSet(new Set(st.live)),
    })),
    peers: idSet(s.peers),
    // Sent again as it is on a retry: its `live` keeps the order of the ring it went through.
    regenPending: orNull(s.regenPending, (r) => ({
      to: r.to,
      hop: r.hop,
      msg: {
        type: r.msg.type,
        generation: r.msg.generation,
        initiator: r.msg.initiator,
        live: [...r.msg.live],
      },
      tries: r.tries,
    })),
  }
}

const tokenFrom = (t: Snapshot): TokenState => {
  const saved = t as { generation: number; count: number; members: NodeId[]; view: number }
  return {
    generation: saved.generation,
    count: saved.count,
    members: [...saved.members],
    ...(saved.view === 0 ? {} : { view: saved.view }), // view 0 travels without the field
  }
}

/** The state `snapshotOf` gave, as live state again (for `restore()`). */
export function stateFrom(snapshot: Snapshot): TokenRingState {
  const s = snapshot as Record<string, unknown> & {
    view: NodeId[]
    viewMembers: NodeId[]
    peers: NodeId[]
  }
  const or = <T>(v: unknown, f: (x: never) => T): T | undefined =>
    v === null ? undefined : f(v as never)
  return {
    view: [...s.view],
    viewNo: s.viewNo as number,
    viewMembers: [...s.viewMembers],
    lostMs: s.lostMs as number,
    token: or(s.token, tokenFrom),
    inSection: s.inSection as boolean,
    entryToken: s.entryToken as number,
    wants: s.wants as number,
    passSeq: s.passSeq as number,
    hopSeq: s.hopSeq as number,
    pending: or(s.pending, (p: { to: NodeId; pass: number; state: Snapshot; tries: number }) => ({
      ...p,
      state: tokenFrom(p.state),
    })),
    lastCommit: or(s.lastCommit, (c: { to: NodeId; pass: number }) => ({ ...c })),
    incoming: or(
      s.incoming,
      (i: { from: NodeId; pass: number; state: Snapshot; tries: number }) => ({
        ...i,
        state: tokenFrom(i.state),
      }),
    ),
    lastTaken: or(s.lastTaken, (t: { from: NodeId; pass: number }) => ({ ...t })),
    floor: s.floor as number,
    tokenGen: s.tokenGen as number,
    best: or(s.best, (b: { generation: number; initiator: NodeId }) => ({ ...b })),
    stopped: or(s.stopped, (st: { generation: number; live: NodeId[] }) => ({
      generation: st.generation,
      live: [...st.live],
    })),
    peers: [...s.peers],
    regenPending: or(
      s.regenPending,
      (r: {
        to: NodeId
        hop: number
        msg: { type: 'regen'; generation: number; initiator: NodeId; live: NodeId[] }
        tries: number
      }) => ({ ...r, msg: { ...r.msg, live: [...r.msg.live] } }),
    ),
  }
}
