import {
  type Ctx,
  compareNodeIds,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import { compareCandidates, type ElectionRequest } from '../contract.js'
import { LeaderWatch } from '../detector/heartbeat.js'
import { restorableWatch, restoreWatch, snapshotFields } from '../restore.js'
import { observeTerm, storedTerm } from '../terms.js'
import type { BullyEvent } from './events.js'
import { type BullyMessage, parseMessage } from './messages.js'
import { type BullyOptions, type BullySettings, resolveOptions } from './options.js'
import { ownsTerm, termAbove } from './terms.js'

type BullyCtx = Ctx<BullyMessage, BullyEvent>

const OK_TIMER = 'bully:ok'
const COORDINATOR_TIMER = 'bully:coordinator'

/**
 * The bully algorithm (Garcia-Molina, 1982), as the course texts give it, with terms.
 *
 * - A process that suspects the leader (heartbeat silence), is asked to (`{ type: 'start' }`) or
 *   (re)starts sends ELECTION to every better candidate (`priority`, then the higher id). If no OK
 *   comes within `okTimeoutMs`, it is the best live candidate: it takes a term above every term
 *   it has seen, emits `leader`, sends COORDINATOR to all, and heartbeats with that term. If an OK
 *   comes, it waits for a COORDINATOR, and starts again if none comes within
 *   `coordinatorTimeoutMs`.
 * - A process receiving ELECTION from a worse candidate answers OK and holds its own election
 *   (unless it runs one already). A live leader instead answers OK and sends its COORDINATOR again
 *   to the initiator: a wrong suspicion costs messages but no new term.
 * - COORDINATOR (or a heartbeat of a leader not yet known) of term t from L: a t below the highest
 *   term seen is stale, ignored and answered with NEWER; from a worse candidate while this node
 *   is alive, it bullies back (its own election, which it wins with a higher term); otherwise the
 *   node follows L and emits `leader` when leader or term changed. Silence from the leader:
 *   `leader-lost`, then an election.
 * - Every message carries a term; a leader that sees a term above its own steps down
 *   (`leader-lost`) and holds an election.
 *
 * Terms are kept in stable storage and owned by one member each (see ./terms.ts): the member of
 * rank r among n (by id) takes only terms r + 1 + k n. Bully has no vote, so two processes can
 * both announce themselves (a restarted process that missed the newest term, a timeout that
 * lied); owned terms still differ, so no term has two leaders and the term stays a fencing token.
 *
 * `{ type: 'resign' }` on the leader: it emits `leader-lost`, sends RESIGN to all, and stays out
 * (answers no ELECTION, starts none) until a new leader is announced, so the next best wins. The
 * resignation lasts for that one election and is volatile: a later election (or a restart of the
 * resigned node) may make it leader again. A `start` request ends it at once.
 *
 * Messages per election with the leader crashed (heartbeats aside): n when the second best
 * notices (one ELECTION to the crashed leader, then n - 1 COORDINATORs), n (n - 1) when the worst
 * notices (n (n - 1) / 2 ELECTIONs, (n - 1)(n - 2) / 2 OKs, n - 1 COORDINATORs).
 *
 * Safe only under its timing assumption: a message slower than the timeouts, or a partition,
 * makes two leaders at once (in different terms); the better one bullies the other once they
 * hear each other.
 */
/** A bully election protocol for one node; validates `options` at once (`ERR_INVALID_ARGUMENT`). */
export function bully(
  options?: BullyOptions,
): ProtocolFactory<BullyMessage, ElectionRequest, BullyEvent> {
  const settings = resolveOptions(options)
  return (_self: NodeId) => new BullyNode(settings)
}

/**
 * One node of the bully algorithm. Its state is volatile except the highest term seen (stable
 * storage): a restarted node knows no leader, runs an election, and never reuses a term.
 */
export class BullyNode implements Protocol<BullyMessage, ElectionRequest, BullyEvent> {
  private readonly watch: LeaderWatch
  /** The leader this node follows (itself when it leads), undefined while it knows none. */
  private leader: NodeId | undefined
  private leaderTerm = 0
  /** 'electing': ELECTION sent, waiting for an OK; 'waiting': an OK came, waiting for a COORDINATOR. */
  private phase: 'idle' | 'electing' | 'waiting' = 'idle'
  /** A leader that resigned stays out (no OK, no election) until a new leader is announced. */
  private resigned = false
  /**
   * `trustDetector` only: the leader this node's detector declared silent, left out of the
   * elections that follow until it is heard from again or a new leader is known.
   */
  private silent: NodeId | undefined

  /** Absent with phi accrual, whose history the watch cannot be given back (../restore.ts). */
  readonly restore?: (snapshot: unknown) => void

  constructor(private readonly settings: BullySettings) {
    this.watch = new LeaderWatch(settings.heartbeat)
    if (restorableWatch(settings.heartbeat)) this.restore = (snapshot) => this.load(snapshot)
  }

  /** Takes on the state `snapshot()` gave; a leading watch beats its term again. */
  private load(snapshot: unknown): void {
    const fields = ['leader', 'leaderTerm', 'phase', 'resigned', 'watch'] as const
    const s = snapshotFields(snapshot, 'bully()', fields)
    if (this.settings.trustDetector) {
      this.silent =
        (snapshotFields(snapshot, 'bully()', ['silent']).silent as NodeId | null) ?? undefined
    }
    this.leader = (s.leader as NodeId | null) ?? undefined
    this.leaderTerm = s.leaderTerm as number
    this.phase = s.phase as BullyNode['phase']
    this.resigned = s.resigned as boolean
    const term = this.leaderTerm
    restoreWatch(this.watch, s.watch, 'bully()', (ctx: BullyCtx) =>
      ctx.broadcast({ type: 'heartbeat', term }),
    )
  }

  /** The node's volatile state as canonical plain data (the highest term seen is stable storage). */
  snapshot() {
    return {
      leader: this.leader ?? null,
      leaderTerm: this.leaderTerm,
      phase: this.phase,
      resigned: this.resigned,
      watch: this.watch.snapshot(),
      // Only with the option: the textbook bully's snapshot is unchanged.
      ...(this.settings.trustDetector && { silent: this.silent ?? null }),
    }
  }

  /** A (re)started process does not know the leader: it holds an election, and bullies if it is the best. */
  start(ctx: BullyCtx): void {
    this.startElection(ctx)
  }

  onRequest(req: ElectionRequest, ctx: BullyCtx): void {
    const type: unknown = req?.type
    if (type === 'start') {
      // An explicit start also ends a resignation: the caller wants this node back in.
      this.resigned = false
      this.suspect(ctx)
    } else if (type === 'resign') {
      this.resign(ctx)
    } else {
      ctx.emit({ type: 'ignored', from: ctx.self, reason: 'malformed request' })
    }
  }

  onMessage(from: NodeId, raw: BullyMessage, ctx: BullyCtx): void {
    const msg = parseMessage(raw)
    if (typeof msg === 'string') {
      ctx.emit({ type: 'ignored', from, reason: msg })
      return
    }
    const known = storedTerm(ctx.storage)
    observeTerm(ctx.storage, msg.term)
    if (from === this.silent) this.silent = undefined // alive after all: asked again
    switch (msg.type) {
      case 'election':
        this.onElection(from, ctx)
        break
      case 'ok':
        this.onOk(from, ctx)
        break
      case 'coordinator':
      case 'heartbeat':
        this.onClaim(from, msg.type, msg.term, known, ctx)
        break
      case 'resign':
        if (from === this.leader && msg.term === this.leaderTerm) this.suspect(ctx)
        else ctx.emit({ type: 'ignored', from, reason: `resign of term ${msg.term}, not followed` })
        break
      case 'newer':
        break // the term was observed above; the check below does the rest
    }
    // A leader that hears of a term above its own was replaced somewhere (while cut off, or it
    // restarted with an old term): it steps down and holds an election, which it wins again with
    // a term above every term seen if it is still the best live candidate.
    if (this.leader === ctx.self && storedTerm(ctx.storage) > this.leaderTerm) this.suspect(ctx)
  }

  onTimer(key: string, ctx: BullyCtx): void {
    const watched = this.watch.onTimer(key, ctx)
    if (watched === 'suspect') {
      if (this.settings.trustDetector) this.silent = this.leader
      this.suspect(ctx)
    } else if (watched !== undefined) {
      // a heartbeat went out
    } else if (key === OK_TIMER && this.phase === 'electing') {
      this.win(ctx)
    } else if (key === COORDINATOR_TIMER && this.phase === 'waiting') {
      // The candidate that answered OK never announced (it crashed meanwhile): start over.
      this.phase = 'idle'
      this.startElection(ctx)
    }
  }

  private onElection(from: NodeId, ctx: BullyCtx): void {
    if (this.compare(from, ctx.self) > 0) {
      ctx.emit({ type: 'ignored', from, reason: 'election from a better candidate' })
      return
    }
    if (this.resigned) {
      ctx.emit({ type: 'ignored', from, reason: 'resigned: stays out of this election' })
      return
    }
    ctx.send(from, { type: 'ok', term: storedTerm(ctx.storage) })
    if (this.leader === ctx.self) {
      // Still leading: the initiator suspected wrongly, tell it at once (no new term). An outdated
      // leader says nothing here; its new election (in onMessage) announces to everyone.
      if (storedTerm(ctx.storage) === this.leaderTerm) {
        ctx.send(from, { type: 'coordinator', term: this.leaderTerm })
      }
      return
    }
    this.startElection(ctx)
  }

  private onOk(from: NodeId, ctx: BullyCtx): void {
    // Later OKs, or OKs after the election ended, change nothing: a better candidate runs.
    if (this.phase !== 'electing' || this.compare(from, ctx.self) < 0) return
    ctx.cancelTimer(OK_TIMER)
    this.phase = 'waiting'
    ctx.emit({ type: 'ok', from })
    ctx.setTimer(COORDINATOR_TIMER, this.settings.coordinatorTimeoutMs)
  }

  /** A COORDINATOR, or a HEARTBEAT (which also tells a node that missed the COORDINATOR). */
  private onClaim(
    from: NodeId,
    kind: 'coordinator' | 'heartbeat',
    term: number,
    known: number,
    ctx: BullyCtx,
  ): void {
    const [rank, size] = this.rankOf(from, ctx)
    if (!ownsTerm(term, rank, size)) {
      ctx.emit({ type: 'ignored', from, reason: `${kind} of term ${term}, not a term of ${from}` })
      return
    }
    if (term < known) {
      ctx.emit({ type: 'ignored', from, reason: `${kind} of term ${term}, older than ${known}` })
      ctx.send(from, { type: 'newer', term: known })
      return
    }
    if (from === this.leader && term === this.leaderTerm) {
      this.watch.heard(ctx)
      // The leader's COORDINATOR again: the answer to this node's ELECTION, which ends it. A
      // heartbeat does not: the ELECTION is on its way to the leader, which will answer it.
      if (kind === 'coordinator') this.endElection(ctx)
      return
    }
    if (!this.resigned && this.compare(from, ctx.self) < 0) {
      // This node is alive and better: it bullies the claimant with an election of its own.
      ctx.emit({ type: 'ignored', from, reason: `${kind} from a worse candidate` })
      this.startElection(ctx)
      return
    }
    this.resigned = false
    this.endElection(ctx)
    const changed = from !== this.leader || term !== this.leaderTerm
    this.leader = from
    this.leaderTerm = term
    if (changed) ctx.emit({ type: 'leader', leader: from, term })
    this.watch.follow(ctx)
  }

  private resign(ctx: BullyCtx): void {
    if (this.leader !== ctx.self) {
      ctx.emit({ type: 'ignored', from: ctx.self, reason: 'resign from a node that does not lead' })
      return
    }
    const term = this.leaderTerm
    this.dropLeader(ctx)
    this.resigned = true
    ctx.broadcast({ type: 'resign', term })
  }

  /** The leader is no longer trusted (silence, a request, a resignation, or a newer term). */
  private suspect(ctx: BullyCtx): void {
    this.dropLeader(ctx)
    // Already electing (a worse candidate's ELECTION came first) and only waiting for the leader
    // that just fell silent: with trustDetector, no OK is awaited from it.
    if (this.phase === 'electing' && this.silent !== undefined && this.better(ctx).length === 0) {
      this.win(ctx)
      return
    }
    this.startElection(ctx)
  }

  private dropLeader(ctx: BullyCtx): void {
    if (this.leader === undefined) return
    ctx.emit({ type: 'leader-lost', term: this.leaderTerm })
    this.leader = undefined
    this.watch.stop(ctx)
  }

  private startElection(ctx: BullyCtx): void {
    if (this.phase !== 'idle' || this.resigned) return
    if (this.leader === ctx.self) this.dropLeader(ctx)
    this.phase = 'electing'
    const known = storedTerm(ctx.storage)
    ctx.emit({ type: 'election-started', term: known })
    const better = this.better(ctx)
    if (better.length === 0) {
      this.win(ctx) // nobody to ask: the best candidate wins at once
      return
    }
    for (const id of better) ctx.send(id, { type: 'election', term: known })
    ctx.setTimer(OK_TIMER, this.settings.okTimeoutMs)
  }

  private win(ctx: BullyCtx): void {
    this.endElection(ctx)
    const [rank, size] = this.rankOf(ctx.self, ctx)
    const term = termAbove(storedTerm(ctx.storage), rank, size)
    observeTerm(ctx.storage, term) // durable before the COORDINATOR leaves
    this.leader = ctx.self
    this.leaderTerm = term
    ctx.emit({ type: 'leader', leader: ctx.self, term })
    ctx.broadcast({ type: 'coordinator', term })
    // The COORDINATOR counts as the first heartbeat: the next one goes out intervalMs later.
    let announced = false
    this.watch.lead(ctx, (ctx) => {
      if (announced) ctx.broadcast({ type: 'heartbeat', term })
      announced = true
    })
  }

  private endElection(ctx: BullyCtx): void {
    ctx.cancelTimer(OK_TIMER)
    ctx.cancelTimer(COORDINATOR_TIMER)
    this.phase = 'idle'
    this.silent = undefined
  }

  /** The better candidates an election asks: all of them, but the silent leader (trustDetector). */
  private better(ctx: BullyCtx): NodeId[] {
    return ctx.peers.filter((id) => id !== this.silent && this.compare(id, ctx.self) > 0)
  }

  private compare(a: NodeId, b: NodeId): number {
    return compareCandidates(a, b, this.settings.priority)
  }

  /** The rank of `id` among the members sorted by id, and their number (who owns which terms). */
  private rankOf(id: NodeId, ctx: BullyCtx): [number, number] {
    const members = [ctx.self, ...ctx.peers].sort(compareNodeIds)
    return [members.indexOf(id), members.length]
  }
}
