import { type NodeId, readStored, sortNodeIds } from '@sd/transport'
import { LeaderWatch } from '../detector/heartbeat.js'
import { snapshotFields } from '../restore.js'
import { shownShape, voteShape } from '../stored.js'
import type { MajoritySettings } from './options.js'
import type { MajorityCtx } from './protocol.js'

/** The one vote of the latest term this node voted in: `{ term, for }`. */
export const VOTE_KEY = 'majority:vote'
/** The leader and term of the latest `leader` event this node emitted: `{ term, leader }`. */
export const SHOWN_KEY = 'majority:shown'

export const ELECT = 'majority:elect'
export const ROUND = 'majority:round'
export const PRE_ROUND = 'majority:pre-round'
export const LEASE = 'majority:lease'
/** A hand-over's deadline: the target should lead within timeoutMs. */
export const TRANSFER = 'majority:transfer'
/** The lease of a lone member (a majority of one): it never ends. */
export const LONE_LEASE = Number.MAX_VALUE

/**
 * Whom a node stands by until `until` (its monotonic clock): the leader it heard last, the candidate it
 * voted for, itself while it asks for votes, or nobody (`to` undefined) just after it started. It
 * gives no vote to anybody else meanwhile, and ignores leaders of terms below `term`.
 */
export interface Loyalty {
  to: NodeId | undefined
  term: number
  until: number
}

/** A view the lease counts over: its number and members. */
export interface CountedView {
  view: number | undefined
  members: NodeId[]
}

/** A pre-vote: would a majority vote for this node now? Nothing durable happens in it. */
export interface PreRound {
  term: number
  grants: Set<NodeId>
  refusals: Set<NodeId>
}

export interface Round {
  term: number
  /** Who granted, with the `at` (monotonic) of the request they answered (the lease starts from it). */
  votes: Map<NodeId, number>
  refusals: Set<NodeId>
}

/** One node's volatile state; what must survive a crash is in `ctx.storage` (the keys above). */
export class MajorityState {
  readonly watch: LeaderWatch
  /** The group it counts: the current view's members, or itself and ctx.peers before any view. */
  members: NodeId[] = []
  majority = 1
  /** Itself and ctx.peers: whom it hears from at all (a view may name fewer). */
  peers: NodeId[] = []
  /** The number of the view it counts over; undefined before the first view request. */
  view: number | undefined
  /** The view after `view` its membership accepted, not yet installed (view.ts, rule 4). */
  pending: { view: number; members: NodeId[] } | undefined
  /** Not in the current view (or awaiting its first): it never stands nor votes. */
  passive = false
  /**
   * As leader: the views its lease must hold a majority of, oldest first. One, but for a while
   * after it installed a new view while leading: the previous one too (see view.ts).
   */
  counted: CountedView[] = []
  /** As leader: per follower, the highest view it acknowledged a heartbeat with. */
  readonly viewAcks = new Map<NodeId, number>()
  role: 'follower' | 'candidate' | 'leader' = 'follower'
  /** The leader this node follows (itself while it leads); undefined once it lost it. */
  leader: NodeId | undefined
  leaderTerm = 0
  /** The leader this node knew last, left out of the ranking of who stands first. */
  lastLeader: NodeId | undefined
  loyalty: Loyalty | undefined
  round: Round | undefined
  preRound: PreRound | undefined
  /** As leader: per follower, the `at` (monotonic) of the latest heartbeat (or request) it acknowledged. */
  readonly acks = new Map<NodeId, number>()
  /** As leader: when its lease ends, on its monotonic clock (announced in `lease` events). */
  leaseExpiry: number | undefined
  firstBeat = false
  /** The best candidate that asked this node for a vote in `term`. */
  askers: { term: number; best: NodeId } | undefined
  /** After a `resign`: stay out of the next election this node could stand in. */
  standDown = false
  /** As leader: since when (monotonic); a member never heard from is silent since then. */
  ledSince: number | undefined
  /** As leader: the members it reported `member-silent` and has not heard from since. */
  readonly silent = new Set<NodeId>()
  /**
   * As leader: when it first counted each member for silence (a member that joins the view later
   * is silent from then on, not from the start of the leadership).
   */
  readonly watchedSince = new Map<NodeId, number>()
  /** As a leader that handed over: to whom, and the term it led (until the target wins). */
  transfer: { to: NodeId; term: number } | undefined

  constructor(
    readonly self: NodeId,
    readonly settings: MajoritySettings,
  ) {
    const { intervalMs, timeoutMs, detector } = settings
    this.watch = new LeaderWatch(
      detector === undefined ? { intervalMs, timeoutMs } : { intervalMs, timeoutMs, detector },
    )
  }
}

/**
 * The state as canonical plain data: sets as ids ascending, maps as `[id, value]` pairs by id,
 * absent as null. Every field of MajorityState is here (settings and self are configuration).
 */
export function snapshotMajority(s: MajorityState) {
  const byId = (map: Map<NodeId, number>) =>
    sortNodeIds([...map.keys()]).map((id) => [id, map.get(id)!] as [NodeId, number])
  return {
    members: [...s.members],
    majority: s.majority,
    peers: [...s.peers],
    view: s.view ?? null,
    passive: s.passive,
    pending:
      s.pending === undefined ? null : { view: s.pending.view, members: [...s.pending.members] },
    counted: s.counted.map((c) => ({ view: c.view ?? null, members: [...c.members] })),
    viewAcks: byId(s.viewAcks),
    role: s.role,
    leader: s.leader ?? null,
    leaderTerm: s.leaderTerm,
    lastLeader: s.lastLeader ?? null,
    loyalty: s.loyalty === undefined ? null : { ...s.loyalty, to: s.loyalty.to ?? null },
    round:
      s.round === undefined
        ? null
        : {
            term: s.round.term,
            votes: byId(s.round.votes),
            refusals: sortNodeIds([...s.round.refusals]),
          },
    preRound:
      s.preRound === undefined
        ? null
        : {
            term: s.preRound.term,
            grants: sortNodeIds([...s.preRound.grants]),
            refusals: sortNodeIds([...s.preRound.refusals]),
          },
    acks: byId(s.acks),
    leaseExpiry: s.leaseExpiry ?? null,
    firstBeat: s.firstBeat,
    askers: s.askers === undefined ? null : { ...s.askers },
    standDown: s.standDown,
    transfer: s.transfer === undefined ? null : { ...s.transfer },
    ledSince: s.ledSince ?? null,
    silent: sortNodeIds([...s.silent]),
    watchedSince: byId(s.watchedSince),
    watch: s.watch.snapshot(),
  }
}

/** What `snapshotMajority` gives: the fields `restoreMajority` needs, all of them. */
const FIELDS = [
  'members',
  'majority',
  'peers',
  'view',
  'passive',
  'pending',
  'counted',
  'viewAcks',
  'role',
  'leader',
  'leaderTerm',
  'lastLeader',
  'loyalty',
  'round',
  'preRound',
  'acks',
  'leaseExpiry',
  'firstBeat',
  'askers',
  'standDown',
  'transfer',
  'ledSince',
  'silent',
  'watchedSince',
  'watch',
] as const

type Snapshot = ReturnType<typeof snapshotMajority>

/** A map written back from the `[id, value]` pairs `snapshotMajority` sorted. */
const refill = <K, V>(map: Map<K, V>, pairs: readonly (readonly [K, V])[]) => {
  map.clear()
  for (const [k, v] of pairs) map.set(k, v)
}

/**
 * Takes on the state `snapshotMajority` gave (for `restore()`), but for the watch, whose beat is
 * the protocol's (it returns the watch's snapshot); a snapshot of another shape is refused with
 * InvalidArgumentError. Nothing is kept from `snapshot`: arrays and objects are copied.
 */
export function restoreMajority(s: MajorityState, snapshot: unknown): unknown {
  const v = snapshotFields(snapshot, 'majorityElection()', FIELDS) as unknown as Snapshot
  s.members = [...v.members]
  s.majority = v.majority
  s.peers = [...v.peers]
  s.view = v.view ?? undefined
  s.passive = v.passive
  s.pending =
    v.pending === null ? undefined : { view: v.pending.view, members: [...v.pending.members] }
  s.counted = v.counted.map((c) => ({ view: c.view ?? undefined, members: [...c.members] }))
  refill(s.viewAcks, v.viewAcks)
  s.role = v.role
  s.leader = v.leader ?? undefined
  s.leaderTerm = v.leaderTerm
  s.lastLeader = v.lastLeader ?? undefined
  s.loyalty = v.loyalty === null ? undefined : { ...v.loyalty, to: v.loyalty.to ?? undefined }
  s.round =
    v.round === null
      ? undefined
      : { term: v.round.term, votes: new Map(v.round.votes), refusals: new Set(v.round.refusals) }
  s.preRound =
    v.preRound === null
      ? undefined
      : {
          term: v.preRound.term,
          grants: new Set(v.preRound.grants),
          refusals: new Set(v.preRound.refusals),
        }
  refill(s.acks, v.acks)
  s.leaseExpiry = v.leaseExpiry ?? undefined
  s.firstBeat = v.firstBeat
  s.askers = v.askers === null ? undefined : { ...v.askers }
  s.standDown = v.standDown
  s.transfer = v.transfer === null ? undefined : { ...v.transfer }
  s.ledSince = v.ledSince ?? undefined
  s.silent.clear()
  for (const id of v.silent) s.silent.add(id)
  refill(s.watchedSince, v.watchedSince)
  return v.watch
}

/** Whether this node's loyalty holds now, to somebody other than `id`. */
export function loyal(s: MajorityState, id: NodeId, ctx: MajorityCtx): boolean {
  const l = s.loyalty
  return l !== undefined && l.to !== id && ctx.monotonic() < l.until
}

/** The vote stored last; a value of another shape throws StoredStateError. */
export function storedVote(ctx: MajorityCtx): { term: number; for: NodeId } | undefined {
  return readStored(ctx.storage, VOTE_KEY, voteShape)
}

/** The leader announced last; a value of another shape throws StoredStateError. */
export function shown(ctx: MajorityCtx): { term: number; leader: NodeId | undefined } {
  return readStored(ctx.storage, SHOWN_KEY, shownShape) ?? { term: 0, leader: undefined }
}

export function ignore(from: NodeId, reason: string, ctx: MajorityCtx): void {
  ctx.emit({ type: 'ignored', from, reason })
}
