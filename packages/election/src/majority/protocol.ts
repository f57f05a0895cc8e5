import {
  type Ctx,
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
  readStored,
} from '@sd/transport'
import { compareCandidates, type ElectionRequest } from '../contract.js'
import { LeaderWatch } from '../detector/heartbeat.js'
import { shownShape, voteShape } from '../stored.js'
import { nextTerm, observeTerm, storedTerm } from '../terms.js'
import {
  type MajorityEvent,
  type MajorityMessage,
  parseMessage,
  type StepDownReason,
} from './messages.js'
import { type MajorityElectionOptions, type MajoritySettings, majoritySettings } from './options.js'

/** The one vote of the latest term this node voted in: `{ term, for }`. */
const VOTE_KEY = 'majority:vote'
/** The leader and term of the latest `leader` event this node emitted: `{ term, leader }`. */
const SHOWN_KEY = 'majority:shown'

const ELECT = 'majority:elect'
const ROUND = 'majority:round'
const PRE_ROUND = 'majority:pre-round'
const LEASE = 'majority:lease'
/** The lease of a lone member (a majority of one): it never ends. */
const LONE_LEASE = Number.MAX_VALUE

type MajorityCtx = Ctx<MajorityMessage, MajorityEvent>

/**
 * Whom a node stands by until `until` (its monotonic clock): the leader it heard last, the candidate it
 * voted for, itself while it asks for votes, or nobody (`to` undefined) just after it started. It
 * gives no vote to anybody else meanwhile, and ignores leaders of terms below `term`.
 */
interface Loyalty {
  to: NodeId | undefined
  term: number
  until: number
}

/** A pre-vote: would a majority vote for this node now? Nothing durable happens in it. */
interface PreRound {
  term: number
  grants: Set<NodeId>
  refusals: Set<NodeId>
}

interface Round {
  term: number
  /** Who granted, with the `at` (monotonic) of the request they answered (the lease starts from it). */
  votes: Map<NodeId, number>
  refusals: Set<NodeId>
}

/**
 * Leader election by majority vote, in terms (Raft's election without the log), with bully-style
 * preference for the better candidate. Opt-in: it gives up the minority side of a partition.
 *
 * Guarantees (tested in the simulator, see test/majority*.test.ts):
 * - At most one leader per term, whatever the timing: a node votes at most once per term and
 *   records the vote durably before it answers (a restart with its disk cannot vote twice), and a
 *   candidate leads only with the votes of a strict majority of all members, itself included.
 * - Terms never go back at a node, across restarts too: a node announces (`leader`) only a term
 *   at or above the last one it announced, which it keeps in stable storage.
 * - No leader in a minority: a node leads at time t only if a majority of the members (itself
 *   included) answered a heartbeat or vote request it sent within (t - timeoutMs + intervalMs, t].
 *   A leader cut off from a majority emits `leader-lost` within timeoutMs - intervalMs of the
 *   cut, one interval before the others can elect; a side without a majority never elects, nor
 *   spends a term (pre-vote). Every duration is on the monotonic clock: the assumption is a bound
 *   on clock rates, not on readings, and a wall-clock step changes nothing. A leader that wakes
 *   from a pause past its lease steps down before it acts on anything.
 * - No flapping: a node that heard the leader (or granted a vote) within the last timeoutMs
 *   refuses every other candidate, so a slow node, or one that rejoins, cannot depose a leader
 *   that a majority hears; the leader's term does not change.
 * - Liveness once the network is sound: one leader agreed by every running node (in the tests,
 *   within 4 timeouts of the last fault); after a crash of the leader, about one timeout to elect
 *   its successor (suspicion, then the best live node stands in the first 1/n of the candidacy
 *   window). An uncontested election costs a pre-vote and a vote, each n - 1 requests and their
 *   answers, and n - 1 announcements: 5(n - 1) messages, 5n - 7 when the dead leader is asked.
 * - Preference, best effort: candidates stand in rank-ordered delay slots, and a node does not
 *   vote for a candidate worse than one that already asked it in the same term, so the best live
 *   node usually wins; it is not guaranteed (a slow best node loses to a faster one), and a better
 *   node that joins later does not take over.
 *
 * A false suspicion (one node misses heartbeats) costs that node a refused pre-vote: it emits
 * `leader-lost` and `pre-candidate`, asks (2(n - 1) messages, nothing written, no term spent), is
 * refused by everyone who hears the leader, and follows the same leader again at its next
 * heartbeat. A follower accepts a leader of a term below the highest it has seen as long as it is
 * not below the last it announced, so a candidacy that did fail never locks a healthy leader out.
 * Only when a majority suspects does a new election happen, and the old leader steps down when
 * its lease ends or it hears of the new.
 */
export function majorityElection(
  options: MajorityElectionOptions = {},
): ProtocolFactory<MajorityMessage, ElectionRequest, MajorityEvent> {
  const settings = majoritySettings(options)
  return (self) => {
    const node = new MajorityNode(self, settings)
    return {
      start(ctx) {
        node.bind(ctx).start()
      },
      onMessage(from, raw, ctx) {
        node.bind(ctx).onMessage(from, raw)
      },
      onTimer(key, ctx) {
        node.bind(ctx).onTimer(key)
      },
      onRequest(req, ctx) {
        node.bind(ctx).onRequest(req)
      },
    } satisfies Protocol<MajorityMessage, ElectionRequest, MajorityEvent>
  }
}

class MajorityNode {
  private ctx!: MajorityCtx
  private readonly watch: LeaderWatch
  private members: NodeId[] = []
  private majority = 1
  private role: 'follower' | 'candidate' | 'leader' = 'follower'
  /** The leader this node follows (itself while it leads); undefined once it lost it. */
  private leader: NodeId | undefined
  private leaderTerm = 0
  /** The leader this node knew last, left out of the ranking of who stands first. */
  private lastLeader: NodeId | undefined
  private loyalty: Loyalty | undefined
  private round: Round | undefined
  private preRound: PreRound | undefined
  /** As leader: per follower, the `at` (monotonic) of the latest heartbeat (or request) it acknowledged. */
  private readonly acks = new Map<NodeId, number>()
  /** As leader: when its lease ends, on its monotonic clock (announced in `lease` events). */
  private leaseExpiry: number | undefined
  private firstBeat = false
  /** The best candidate that asked this node for a vote in `term`. */
  private askers: { term: number; best: NodeId } | undefined
  /** After a `resign`: stay out of the next election this node could stand in. */
  private standDown = false

  constructor(
    readonly self: NodeId,
    private readonly settings: MajoritySettings,
  ) {
    this.watch = new LeaderWatch({ intervalMs: settings.intervalMs, timeoutMs: settings.timeoutMs })
  }

  bind(ctx: MajorityCtx): this {
    this.ctx = ctx
    return this
  }

  start(): void {
    const ctx = this.ctx
    this.members = [ctx.self, ...ctx.peers]
    this.majority = Math.floor(this.members.length / 2) + 1
    for (const id of this.members) {
      const p = this.settings.priority(id)
      if (typeof p !== 'number' || !Number.isFinite(p)) {
        throw new InvalidArgumentError(
          `majorityElection: priority(${JSON.stringify(id)}) must be a finite number, got ${p}`,
        )
      }
    }
    // The whole stored state is read now, so a damaged or foreign store (StoredStateError) stops
    // the node before it takes part in anything.
    storedTerm(ctx.storage)
    this.vote()
    this.shown()
    // A node that (re)starts may have acknowledged a leader in its previous life, whose lease
    // counts on it: it listens for a full timeout before it votes for anybody.
    this.loyalty = { to: undefined, term: 0, until: ctx.monotonic() + this.settings.timeoutMs }
    this.watch.follow(ctx)
  }

  onMessage(from: NodeId, raw: unknown): void {
    this.expireLease()
    const msg = parseMessage(raw)
    if (typeof msg === 'string') this.ignore(from, msg)
    else if (from === this.self || !this.members.includes(from)) this.ignore(from, 'no member')
    else if (msg.type === 'pre-vote') this.onPreVote(from, msg.term)
    else if (msg.type === 'pre-vote-reply') this.onPreVoteReply(from, msg)
    else if (msg.type === 'vote') this.onVoteRequest(from, msg.term, msg.at)
    else if (msg.type === 'vote-reply') this.onVoteReply(from, msg)
    else if (msg.type === 'leader' || msg.type === 'heartbeat')
      this.onHeartbeat(from, msg.term, msg.at)
    else if (msg.type === 'ack') this.onAck(from, msg.term, msg.at)
    else if (msg.type === 'stale') {
      if (this.role === 'leader' && msg.term > this.leaderTerm) this.stepDown('newer-leader')
    } else this.onResign(from, msg.term)
  }

  onTimer(key: string): void {
    this.expireLease()
    const watched = this.watch.onTimer(key, this.ctx)
    if (watched === 'suspect') this.suspect()
    if (watched !== undefined) return
    if (key === ELECT) this.elect()
    else if (key === PRE_ROUND) {
      if (this.preRound !== undefined) this.endPreRound()
    } else if (key === ROUND) {
      if (this.role === 'candidate') this.endRound()
    } else if (key === LEASE) {
      const now = this.ctx.monotonic()
      const expiry = this.leaseExpiry
      // A timer a little early (real timers round) is set again for the rest.
      if (this.role === 'leader' && expiry !== undefined && expiry - now >= 1e-6) {
        this.ctx.setTimer(LEASE, expiry - now)
      } else this.checkLease()
    }
  }

  onRequest(req: ElectionRequest): void {
    this.expireLease()
    const type = (req as { type?: unknown } | null)?.type
    if (type === 'start') {
      // As if the leader had been suspected: ask now, whatever this node heard lately (the
      // others still refuse while they hear a leader).
      if (this.role === 'follower' && this.preRound === undefined) this.preVote()
    } else if (type === 'resign') {
      this.standDown = true
      if (this.role === 'leader') this.stepDown('resign')
      else if (this.role === 'candidate') this.endRound()
      else if (this.preRound !== undefined) this.endPreRound()
    } else {
      this.ignore(this.self, 'malformed request')
    }
  }

  // ---- following ------------------------------------------------------------------------------

  private onHeartbeat(from: NodeId, term: number, at: number): void {
    const shown = this.shown()
    if (term < shown.term || (term === shown.term && from !== shown.leader)) {
      // This node announced a later leader already: tell the sender it is not leader any more.
      this.ctx.send(from, { type: 'stale', term: shown.term })
      return
    }
    if (this.role === 'leader') {
      if (term <= this.leaderTerm) {
        this.ignore(from, `heartbeat of term ${term}`)
        return
      }
      this.stepDown('newer-leader')
    } else if (this.loyal(from) && this.loyalty!.term > term) {
      // It voted (or stands) in a later term, and that candidate may still win: wait.
      return
    }
    this.follow(from, term, at)
  }

  private follow(leader: NodeId, term: number, at: number): void {
    const ctx = this.ctx
    if (this.role === 'candidate') this.endRound()
    this.dropPreRound()
    if (this.leader !== leader || this.leaderTerm !== term) {
      observeTerm(ctx.storage, term)
      if (term > this.shown().term) ctx.storage.set(SHOWN_KEY, { term, leader })
      this.leader = leader
      this.leaderTerm = term
      this.lastLeader = leader
      this.standDown = false
      ctx.emit({ type: 'leader', leader, term })
    }
    ctx.cancelTimer(ELECT)
    this.loyalty = { to: leader, term, until: ctx.monotonic() + this.settings.timeoutMs }
    this.watch.follow(ctx)
    ctx.send(leader, { type: 'ack', term, at })
  }

  /** The leader fell silent for timeoutMs. */
  private suspect(): void {
    this.loseLeader()
    this.ctx.setTimer(ELECT, this.candidacyDelay())
  }

  private onResign(from: NodeId, term: number): void {
    if (this.role !== 'follower' || this.leader !== from || this.leaderTerm !== term) return
    this.loseLeader()
    this.loyalty = undefined
    this.watch.stop(this.ctx)
    this.ctx.setTimer(ELECT, this.candidacyDelay())
  }

  private loseLeader(): void {
    if (this.role !== 'follower' || this.leader === undefined) return
    this.ctx.emit({ type: 'leader-lost', term: this.leaderTerm })
    this.leader = undefined
  }

  // ---- voting ---------------------------------------------------------------------------------

  private onVoteRequest(candidate: NodeId, term: number, at: number): void {
    const ctx = this.ctx
    const known = storedTerm(ctx.storage)
    if (term >= known) this.noteAsker(candidate, term)
    const vote = this.vote()
    let granted = false
    if (vote !== undefined && vote.term === term) granted = vote.for === candidate
    else if (term < known || this.role === 'leader' || this.loyal(candidate)) granted = false
    else if (this.askers?.term === term && this.askers.best !== candidate) granted = false
    else {
      if (this.role === 'candidate') this.endRound()
      this.dropPreRound()
      this.loseLeader()
      observeTerm(ctx.storage, term)
      ctx.storage.set(VOTE_KEY, { term, for: candidate })
      this.loyalty = { to: candidate, term, until: ctx.monotonic() + this.settings.timeoutMs }
      ctx.emit({ type: 'voted', term, candidate })
      granted = true
    }
    ctx.send(candidate, {
      type: 'vote-reply',
      term,
      granted,
      at,
      known: storedTerm(ctx.storage),
    })
  }

  /** Preference, best effort: in one term, no vote for a candidate worse than one that asked. */
  private noteAsker(candidate: NodeId, term: number): void {
    const a = this.askers
    if (a === undefined || term > a.term) this.askers = { term, best: candidate }
    else if (term === a.term && compareCandidates(candidate, a.best, this.settings.priority) > 0) {
      a.best = candidate
    }
  }

  /** The elect timer: stand, unless a leader or a candidate holds this node's loyalty. */
  private elect(): void {
    if (this.role !== 'follower' || this.leader !== undefined) return
    const now = this.ctx.monotonic()
    const loyalty = this.loyalty
    if (loyalty !== undefined && loyalty.to !== this.self && now < loyalty.until) {
      this.ctx.setTimer(ELECT, loyalty.until - now + this.candidacyDelay())
    } else if (this.standDown) {
      this.standDown = false
      this.watch.follow(this.ctx) // one more timeout, in which the others elect somebody
    } else {
      this.preVote()
    }
  }

  /**
   * Would a majority vote for this node now? Asked before standing, so that a node that cannot
   * win (cut off in a minority, or the only one to suspect a live leader) spends no term. Terms
   * inflated on a minority side used to split the next election after the heal along the old
   * partition line: the nodes with the higher term refused every candidate below it, and votes
   * given in vain held each side's voters for a timeout.
   */
  private preVote(): void {
    const ctx = this.ctx
    ctx.cancelTimer(ELECT)
    this.watch.stop(ctx)
    this.loseLeader()
    const term = storedTerm(ctx.storage) + 1
    this.preRound = { term, grants: new Set([this.self]), refusals: new Set() }
    ctx.emit({ type: 'pre-candidate', term })
    if (this.preRound.grants.size >= this.majority) this.campaign()
    else {
      ctx.broadcast({ type: 'pre-vote', term })
      ctx.setTimer(PRE_ROUND, this.settings.voteTimeoutMs)
    }
  }

  /** A pre-vote is granted by a node that would vote now: no leader heard, no vote owed. */
  private onPreVote(candidate: NodeId, term: number): void {
    const known = storedTerm(this.ctx.storage)
    const granted = this.role !== 'leader' && !this.loyal(candidate)
    this.ctx.send(candidate, { type: 'pre-vote-reply', term, granted, known })
  }

  private onPreVoteReply(
    from: NodeId,
    msg: Extract<MajorityMessage, { type: 'pre-vote-reply' }>,
  ): void {
    const pre = this.preRound
    if (pre === undefined || pre.term !== msg.term || this.role !== 'follower') return
    // Stand above every term the voters have seen, so that none refuses the term as too low.
    if (msg.known > storedTerm(this.ctx.storage)) observeTerm(this.ctx.storage, msg.known)
    if (msg.granted) {
      pre.grants.add(from)
      if (pre.grants.size >= this.majority) {
        this.dropPreRound()
        this.campaign()
      }
    } else {
      pre.refusals.add(from)
      if (pre.refusals.size > this.members.length - this.majority) this.endPreRound()
    }
  }

  /** The pre-vote failed: listen for a full timeout before asking again. */
  private endPreRound(): void {
    this.dropPreRound()
    this.watch.follow(this.ctx)
  }

  private dropPreRound(): void {
    if (this.preRound === undefined) return
    this.ctx.cancelTimer(PRE_ROUND)
    this.preRound = undefined
  }

  private campaign(): void {
    const ctx = this.ctx
    ctx.cancelTimer(ELECT)
    this.watch.stop(ctx)
    this.loseLeader()
    const term = nextTerm(ctx.storage)
    ctx.storage.set(VOTE_KEY, { term, for: this.self })
    const at = ctx.monotonic()
    this.role = 'candidate'
    this.round = { term, votes: new Map([[this.self, at]]), refusals: new Set() }
    this.loyalty = { to: this.self, term, until: at + this.settings.voteTimeoutMs }
    ctx.emit({ type: 'candidate', term })
    if (this.round.votes.size >= this.majority) this.becomeLeader()
    else {
      ctx.broadcast({ type: 'vote', term, at })
      ctx.setTimer(ROUND, this.settings.voteTimeoutMs)
    }
  }

  private onVoteReply(from: NodeId, msg: Extract<MajorityMessage, { type: 'vote-reply' }>): void {
    if (msg.known > storedTerm(this.ctx.storage)) observeTerm(this.ctx.storage, msg.known)
    const round = this.round
    if (this.role !== 'candidate' || round === undefined || round.term !== msg.term) return
    if (msg.granted) {
      round.votes.set(from, msg.at)
      if (round.votes.size >= this.majority) this.becomeLeader()
    } else {
      round.refusals.add(from)
      if (round.refusals.size > this.members.length - this.majority) this.endRound()
    }
  }

  /** The round is over without a win: listen for a full timeout before standing again. */
  private endRound(): void {
    this.ctx.cancelTimer(ROUND)
    this.round = undefined
    this.role = 'follower'
    if (this.loyalty?.to === this.self) this.loyalty = undefined
    this.watch.follow(this.ctx)
  }

  /** Rank-ordered slots, random inside the slot: the best live node usually stands first. */
  private candidacyDelay(): number {
    const { delayMinMs, delayMaxMs, priority } = this.settings
    let rank = 0
    for (const id of this.members) {
      if (
        id !== this.self &&
        id !== this.lastLeader &&
        compareCandidates(id, this.self, priority) > 0
      )
        rank++
    }
    const slot = (delayMaxMs - delayMinMs) / this.members.length
    return delayMinMs + slot * (rank + this.ctx.random())
  }

  // ---- leading --------------------------------------------------------------------------------

  private becomeLeader(): void {
    const ctx = this.ctx
    const round = this.round!
    this.dropPreRound()
    ctx.cancelTimer(ROUND)
    this.round = undefined
    this.role = 'leader'
    this.leader = this.self
    this.leaderTerm = round.term
    this.lastLeader = this.self
    this.loyalty = undefined
    this.standDown = false
    this.acks.clear()
    for (const [id, at] of round.votes) if (id !== this.self) this.acks.set(id, at)
    if (round.term > this.shown().term) {
      ctx.storage.set(SHOWN_KEY, { term: round.term, leader: this.self })
    }
    ctx.emit({ type: 'leader', leader: this.self, term: round.term })
    this.firstBeat = true
    this.watch.lead(ctx, () => this.beat())
    this.checkLease()
  }

  private beat(): void {
    const type = this.firstBeat ? 'leader' : 'heartbeat'
    this.firstBeat = false
    this.ctx.broadcast({ type, term: this.leaderTerm, at: this.ctx.monotonic() })
  }

  private onAck(from: NodeId, term: number, at: number): void {
    if (this.role !== 'leader' || term !== this.leaderTerm) return
    if (at > (this.acks.get(from) ?? Number.NEGATIVE_INFINITY)) this.acks.set(from, at)
    this.checkLease()
  }

  /**
   * The lease: the leader leads while a majority (itself included) acknowledged a heartbeat it
   * sent less than timeoutMs - intervalMs ago. Such a follower refuses other candidates for
   * timeoutMs after it received that heartbeat, so the leader gives up at least one interval
   * before anyone can be elected: room for a late timer on a busy machine and for clocks that do
   * not run at quite the same rate. All of it on the monotonic clock: `at` is the leader's own
   * reading, echoed back, and a wall-clock step changes nothing. Every new expiry is announced in
   * a `lease` event (for a lock that grants only while the lease runs).
   */
  private checkLease(): void {
    if (this.role !== 'leader') return
    const need = this.majority - 1
    const newest = [...this.acks.values()].sort((a, b) => b - a)[need - 1]
    const expiry =
      need === 0
        ? LONE_LEASE
        : newest === undefined
          ? Number.NEGATIVE_INFINITY
          : newest + this.settings.timeoutMs - this.settings.intervalMs
    const now = this.ctx.monotonic()
    if (expiry - now < 1e-6) this.stepDown('lease')
    else if (expiry !== this.leaseExpiry) {
      this.leaseExpiry = expiry
      if (need > 0) this.ctx.setTimer(LEASE, expiry - now)
      this.ctx.emit({ type: 'lease', term: this.leaderTerm, until: expiry })
    }
  }

  /**
   * Before anything else in a step: a leader whose lease ran out while it could not act (a pause,
   * a late timer) steps down first, so it never acts on an expired lease.
   */
  private expireLease(): void {
    const expiry = this.leaseExpiry
    if (this.role === 'leader' && expiry !== undefined && this.ctx.monotonic() >= expiry) {
      this.stepDown('lease')
    }
  }

  private stepDown(reason: StepDownReason): void {
    const ctx = this.ctx
    const term = this.leaderTerm
    this.watch.stop(ctx)
    ctx.cancelTimer(LEASE)
    this.leaseExpiry = undefined
    this.acks.clear()
    this.role = 'follower'
    this.leader = undefined
    this.loyalty = undefined
    ctx.emit({ type: 'stepped-down', term, reason })
    ctx.emit({ type: 'leader-lost', term })
    if (reason === 'resign') ctx.broadcast({ type: 'resign', term })
    this.watch.follow(ctx)
  }

  // ---- state ----------------------------------------------------------------------------------

  /** Whether this node's loyalty holds now, to somebody other than `id`. */
  private loyal(id: NodeId): boolean {
    const l = this.loyalty
    return l !== undefined && l.to !== id && this.ctx.monotonic() < l.until
  }

  /** The vote stored last; a value of another shape throws StoredStateError. */
  private vote(): { term: number; for: NodeId } | undefined {
    return readStored(this.ctx.storage, VOTE_KEY, voteShape)
  }

  /** The leader announced last; a value of another shape throws StoredStateError. */
  private shown(): { term: number; leader: NodeId | undefined } {
    return readStored(this.ctx.storage, SHOWN_KEY, shownShape) ?? { term: 0, leader: undefined }
  }

  private ignore(from: NodeId, reason: string): void {
    this.ctx.emit({ type: 'ignored', from, reason })
  }
}
