import {
  arrayOf,
  type Ctx,
  compareNodeIds,
  intIn,
  isBoolean,
  isNodeId,
  type JsonValue,
  type NodeId,
  optional,
  readStored,
  type StoredShape,
  shape,
  sortNodeIds,
} from '@sd/transport'
import type { MembershipEvent } from './events.js'
import { type Accepted, type Change, isViewRecord, type MembershipMessage } from './messages.js'
import type { AgreedMembershipSettings } from './options.js'
import type { ViewRecord } from './view.js'

export type MembershipCtx = Ctx<MembershipMessage, MembershipEvent>

/** The one stored key: the views installed, the acceptor's promise and vote, the last term led. */
export const STORE_KEY = 'membership:state'
export const RETRY = 'membership:retry'

export interface Ballot {
  term: number
  by: NodeId
}

/** What must survive a crash (Paxos' acceptor state, and the views for catching others up). */
export interface Durable {
  /** Every view this node installed, in order without gaps; the last is its current view. */
  views: ViewRecord[]
  /** The highest ballot it promised: it accepts nothing lower. */
  promised: Ballot | null
  /** The proposal it accepted for the view after its current one, if any. */
  accepted: Accepted | null
  /** The highest term it proposed in: it never leads a term twice (a restart forgets proposals). */
  led: number
  /** It asked to leave (a restart goes on leaving). */
  leaving: boolean
  /** Members it asked to remove, until a view without them is installed (ids ascending). */
  removals: NodeId[]
  /**
   * A joiner's generation: the time (ctx.now(), ms) this state first started without a view. A
   * fresh state file under the same id is a new incarnation, with a later generation.
   */
  generation?: number
}

const isTerm = intIn(1, Number.MAX_SAFE_INTEGER)
const isBallot = shape({ term: isTerm, by: isNodeId })
const isAccepted = shape({ term: isTerm, by: isNodeId, record: isViewRecord })
const isDurable = shape({
  views: arrayOf(isViewRecord),
  promised: (v: unknown): v is Ballot | null => v === null || isBallot(v),
  accepted: (v: unknown): v is Accepted | null => v === null || isAccepted(v),
  led: intIn(0, Number.MAX_SAFE_INTEGER),
  leaving: isBoolean,
  removals: arrayOf(isNodeId),
  generation: optional(intIn(0, Number.MAX_SAFE_INTEGER)),
})

/** The stored record's shape: a value of another shape throws StoredStateError when read. */
export const durableShape = {
  expected:
    'an object with views (consecutive view records), promised, accepted (or null), led, leaving and removals',
  is: (v): v is Durable & JsonValue => isDurable(v) && consecutive((v as Durable).views),
} satisfies StoredShape<Durable & JsonValue>

function consecutive(views: readonly ViewRecord[]): boolean {
  return views.every((r, i) => i === 0 || r.view === views[i - 1]!.view + 1)
}

/** The stored record, as a copy this node may change (stored values are frozen). */
export function readDurable(ctx: MembershipCtx): Durable | undefined {
  const stored = readStored(ctx.storage, STORE_KEY, durableShape)
  return stored === undefined ? undefined : (JSON.parse(JSON.stringify(stored)) as Durable)
}

export function writeDurable(d: Durable, ctx: MembershipCtx): void {
  ctx.storage.set(STORE_KEY, JSON.parse(JSON.stringify(d)))
}

export function emptyDurable(): Durable {
  return { views: [], promised: null, accepted: null, led: 0, leaving: false, removals: [] }
}

/** Ballots in order: the term first, then the leader's id (two leaders of one term differ). */
export function compareBallots(a: Ballot, b: Ballot): number {
  return a.term - b.term || compareNodeIds(a.by, b.by)
}

/** The leader's work on one view number: promises gathered, then acceptances of its proposal. */
export interface Lead {
  term: number
  phase: 'idle' | 'prepare' | 'accept'
  /** Per member of the current view that promised: what it had accepted for the next view. */
  promises: Map<NodeId, Accepted | null>
  proposal: ViewRecord | undefined
  acks: Set<NodeId>
}

/** One node's state: the stored part (`durable`, written through) and the volatile part. */
export class MembershipState {
  durable: Durable = emptyDurable()
  leader: Ballot | undefined
  lead: Lead | undefined
  /** As leader: changes waiting for their turn, in arrival order. */
  queue: Change[] = []
  /** A joiner: which seed it asks next. */
  seedTurn = 0
  /** The highest view number heard of beyond the next: views to fetch, in order. */
  behind: number | undefined
  /** Which member of its view it asks next for a missing view. */
  fetchTurn = 0
  /** Told it leads this term while not a member: `not-member` is emitted at the next tick. */
  notMember: number | undefined

  constructor(
    readonly self: NodeId,
    readonly settings: AgreedMembershipSettings,
  ) {}

  current(): ViewRecord | undefined {
    return this.durable.views.at(-1)
  }

  /** A node that was a member and is not in its current view: it takes no further part. */
  out(): boolean {
    const c = this.current()
    return c !== undefined && !c.members.includes(this.self)
  }
}

const byId = <T>(ids: Iterable<NodeId>) => sortNodeIds(ids) as T[]

/** The volatile state as canonical plain data (the stored part is the runtime's). */
export function snapshotMembership(s: MembershipState) {
  const lead = s.lead
  return {
    leader: s.leader === undefined ? null : { ...s.leader },
    lead:
      lead === undefined
        ? null
        : {
            term: lead.term,
            phase: lead.phase,
            promises: sortNodeIds([...lead.promises.keys()]).map(
              (id) => [id, lead.promises.get(id) ?? null] as [NodeId, Accepted | null],
            ),
            proposal: lead.proposal ?? null,
            acks: byId<NodeId>(lead.acks),
          },
    queue: s.queue.map((c) => ({ ...c })),
    seedTurn: s.seedTurn,
    notMember: s.notMember ?? null,
    behind: s.behind ?? null,
    fetchTurn: s.fetchTurn,
  }
}

export type MembershipSnapshot = ReturnType<typeof snapshotMembership>

/** The inverse of `snapshotMembership` (the stored part is read back from storage). */
export function restoreMembership(s: MembershipState, snap: MembershipSnapshot): void {
  s.leader = snap.leader === null ? undefined : { ...snap.leader }
  s.lead =
    snap.lead === null
      ? undefined
      : {
          term: snap.lead.term,
          phase: snap.lead.phase,
          promises: new Map(snap.lead.promises),
          proposal: snap.lead.proposal ?? undefined,
          acks: new Set(snap.lead.acks),
        }
  s.queue = snap.queue.map((c) => ({ ...c }))
  s.seedTurn = snap.seedTurn
  s.notMember = snap.notMember ?? undefined
  s.behind = snap.behind ?? undefined
  s.fetchTurn = snap.fetchTurn
}
