// Over 450 lines: joins and leaves change the same state the probes use (gossip, suspicions,
// the view), and split into another file they would need all of it exposed.
/**
 * SWIM (Das, Gupta and Motivala, 2002) with Lifeguard (Dadgar, Phillips and Currey, 2017): each
 * period a node pings one member (shuffled round-robin), asks k others to ping it when no ack
 * comes in time, and suspects it when none of them gets an answer either. A suspect has a
 * timeout to refute (raise its incarnation) before it is declared dead. News travels on the
 * pings and acks. Lifeguard: a node whose own probes keep failing slows itself down (local
 * health), a suspicion lasts long until others confirm it, and a suspect hears it first.
 * Membership changes at run time (membership.ts): joins through seeds, announced leaves.
 */
import {
  type Ctx,
  isNodeId,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
  sortNodeIds,
} from '@sd/transport'
import type { SwimEvent } from './events.js'
import { Gossip } from './gossip.js'
import { admittedOf, doubt, type SwimRefusal, unrefutable } from './guard.js'
import { isGone, MemberList, type MemberUpdate } from './members.js'
import { type MemberEntry, parseMessage, type SwimMessage } from './messages.js'
import { resolveOptions, type SwimOptions, type SwimSettings } from './options.js'
import { type SuspicionBounds, suspicionBounds, suspicionTimeout } from './suspicion.js'
import { ViewLog } from './view.js'

/** What a SWIM node is asked locally. */
export type SwimRequest =
  /** Leave the group gracefully. */
  | { type: 'leave' }
  /**
   * Admission through an agreed membership (wire its views here): from now on only these ids
   * enter the member list, a live member not among them leaves it, and a leave is taken only
   * from the leaver itself. Before the first, any node the gossip names may enter (up to
   * maxMembers).
   */
  | { type: 'admit'; members: NodeId[] }

type SwimCtx = Ctx<SwimMessage, SwimEvent>

const PROBE = 'swim:probe'
const PROBE_TIMEOUT = 'swim:probe-timeout'
const RELAY = 'swim:relay:'
const SUSPICION = 'swim:suspicion:'
const JOIN = 'swim:join'
const suspicionTimer = (node: NodeId) => `${SUSPICION}${JSON.stringify(node)}`

interface Probe {
  target: NodeId
  seq: number
  acked: boolean
  /** Nacks expected from the helpers of the indirect probe (0 before it, or without nacks). */
  expectedNacks: number
  nacks: number
}

interface Suspicion {
  incarnation: number
  startMs: number
  /** The first reporter and every member that confirmed since: confirmations = size - 1. */
  reporters: Set<NodeId>
}

interface Relay {
  requester: NodeId
  seq: number
  target: NodeId
  atMs: number
}

export class SwimNode implements Protocol<SwimMessage, SwimRequest, SwimEvent> {
  private incarnation = 0
  private health = 0
  private seq = 0
  private members = new MemberList([])
  private readonly gossip = new Gossip()
  private readonly suspicions = new Map<NodeId, Suspicion>()
  private order: NodeId[] = []
  private next = 0
  private probe: Probe | undefined
  private readonly relays = new Map<number, Relay>()
  private bounds: SuspicionBounds = { minMs: 0, maxMs: 0, k: 0 }
  private retransmits = 1
  private readonly view = new ViewLog()
  /** In a group: started with peers, or welcomed by a seed. */
  private joined = true
  private joinAttempts = 0
  /** Periods of announcing the leave still to go; then the node stops. */
  private leaving: number | undefined
  private stopped = false
  /** The ids the agreed membership admits; undefined: whoever the gossip names (guard.ts). */
  private admitted: Set<NodeId> | undefined

  constructor(
    readonly self: NodeId,
    readonly settings: SwimSettings,
  ) {}

  start(ctx: SwimCtx) {
    const peers = ctx.peers.slice(0, this.settings.maxMembers - 1)
    this.members = new MemberList(peers)
    for (const peer of peers) this.view.join(peer)
    this.joined = this.seeds().length === 0
    this.resize()
    // A random phase, so the members' periods do not all tick together.
    ctx.setTimer(PROBE, Math.floor(ctx.random() * this.settings.periodMs))
    if (!this.joined) ctx.setTimer(JOIN, 0)
    this.publish(ctx)
  }

  onMessage(from: NodeId, raw: unknown, ctx: SwimCtx) {
    if (this.stopped) return // gone: as silent as a process that exited
    this.handle(from, raw, ctx)
    this.publish(ctx)
  }

  onRequest(req: SwimRequest, ctx: SwimCtx) {
    if (req?.type === 'admit' && !this.stopped) {
      const members = admittedOf(req, isNodeId)
      if (members === undefined) {
        return ctx.emit({ type: 'ignored', from: this.self, reason: 'malformed admit request' })
      }
      this.admit(members, ctx)
      return this.publish(ctx)
    }
    if (req?.type !== 'leave' || this.stopped || this.leaving !== undefined) {
      return ctx.emit({ type: 'ignored', from: this.self, reason: 'not a leave, or gone already' })
    }
    if (!this.joined) this.stop(ctx)
    else {
      this.leaving = this.settings.leavePeriods
      this.gossip.add(this.leaveNews())
      this.announceLeave(ctx)
    }
    this.publish(ctx)
  }

  private handle(from: NodeId, raw: unknown, ctx: SwimCtx) {
    const msg = parseMessage(raw)
    if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
    if (msg.type === 'join') return this.onJoin(from, msg.incarnation, ctx)
    if (msg.type === 'welcome') return this.onWelcome(from, msg.members, ctx)
    if (this.members.get(from) === undefined) {
      // A process that joined through another seed introduces itself with its own alive news.
      const intro = msg.updates.find((u) => u.node === from && u.kind === 'alive')
      if (intro !== undefined && this.joined) this.apply(intro, ctx, from)
    }
    if (this.members.get(from) === undefined) {
      // Still joining, we are alive all the same: an ack spares us a suspicion.
      if (!this.joined && msg.type === 'ping') {
        return ctx.send(from, { type: 'ack', seq: msg.seq, updates: [] })
      }
      return ctx.emit({ type: 'ignored', from, reason: 'not a member' })
    }
    for (const u of msg.updates) this.apply(u, ctx, from)
    if (msg.type === 'ping') {
      // A member we hold dead (or left: news of a leave may be forged) is told so first: it
      // refutes, instead of living on unaware. A member that does leave does not argue.
      const sender = this.members.get(from)!
      const reminder: MemberUpdate | undefined = isGone(sender.state)
        ? { kind: sender.state, node: from, incarnation: sender.incarnation, from: this.self }
        : undefined
      ctx.send(from, { type: 'ack', seq: msg.seq, updates: this.piggyback(reminder) })
    } else if (msg.type === 'ack') this.onAck(msg.seq, ctx)
    else if (msg.type === 'ping-req') {
      if (this.members.get(msg.target) === undefined || msg.target === this.self) {
        return ctx.emit({ type: 'ignored', from, reason: 'ping-req for a non-member' })
      }
      this.seq += 1
      this.relays.set(this.seq, {
        requester: from,
        seq: msg.seq,
        target: msg.target,
        atMs: ctx.monotonic(),
      })
      ctx.send(msg.target, { type: 'ping', seq: this.seq, updates: this.piggyback() })
      ctx.setTimer(`${RELAY}${this.seq}`, this.scaled(this.settings.probeTimeoutMs))
    } else if (this.probe?.seq === msg.seq) this.probe.nacks += 1
  }

  onTimer(key: string, ctx: SwimCtx) {
    if (this.stopped) return
    this.timer(key, ctx)
    this.publish(ctx)
  }

  private timer(key: string, ctx: SwimCtx) {
    if (key === JOIN) return this.askSeed(ctx)
    if (key === PROBE) return this.tick(ctx)
    if (key === PROBE_TIMEOUT) return this.indirect(ctx)
    if (key.startsWith(RELAY)) {
      const relay = this.relays.get(Number(key.slice(RELAY.length)))
      // The target did not answer the helper in time: say so (Lifeguard), the relay stays a
      // period for a late ack.
      if (relay !== undefined && this.settings.nacks) {
        ctx.send(relay.requester, { type: 'nack', seq: relay.seq, updates: this.piggyback() })
      }
      return
    }
    if (key.startsWith(SUSPICION)) {
      for (const [node, s] of this.suspicions) {
        if (suspicionTimer(node) === key) return this.expire(node, s, ctx)
      }
    }
  }

  snapshot() {
    const relays = [...this.relays.keys()].sort((a, b) => a - b)
    return {
      incarnation: this.incarnation,
      health: this.health,
      seq: this.seq,
      members: this.members.snapshot(),
      gossip: this.gossip.snapshot(),
      suspicions: sortNodeIds(this.suspicions.keys()).map((node) => {
        const s = this.suspicions.get(node)!
        return {
          node,
          incarnation: s.incarnation,
          startMs: s.startMs,
          reporters: sortNodeIds(s.reporters),
        }
      }),
      order: [...this.order],
      next: this.next,
      probe: this.probe === undefined ? null : { ...this.probe },
      relays: relays.map((seq) => ({ mySeq: seq, ...this.relays.get(seq)! })),
      bounds: { ...this.bounds },
      retransmits: this.retransmits,
      ...this.view.snapshot(),
      joined: this.joined,
      joinAttempts: this.joinAttempts,
      leaving: this.leaving ?? null,
      stopped: this.stopped,
      admitted: this.admitted === undefined ? null : sortNodeIds(this.admitted),
    }
  }

  /** The period's work: conclude the last probe, then probe the next member. */
  private tick(ctx: SwimCtx) {
    const p = this.probe
    if (p !== undefined && !p.acked) {
      // Lifeguard: helpers that say they heard nothing either clear us; missing nacks, or no
      // helpers at all, count against our own health.
      this.adjustHealth(
        p.expectedNacks > 0 ? p.expectedNacks - Math.min(p.nacks, p.expectedNacks) : 1,
        ctx,
      )
      const m = this.members.get(p.target)
      if (m !== undefined && !isGone(m.state)) {
        this.apply(
          { kind: 'suspect', node: p.target, incarnation: m.incarnation, from: this.self },
          ctx,
        )
      }
    }
    this.probe = undefined
    const now = ctx.monotonic()
    for (const [seq, r] of this.relays) {
      if (now - r.atMs >= this.scaled(this.settings.periodMs)) this.relays.delete(seq)
    }
    this.forgetTombstones(now)
    if (this.leaving !== undefined) {
      this.leaving -= 1
      if (this.leaving === 0) return this.stop(ctx)
      this.announceLeave(ctx)
    }
    ctx.setTimer(PROBE, this.scaled(this.settings.periodMs))
    const target = this.nextTarget(ctx)
    if (target === undefined) return
    this.seq += 1
    this.probe = { target, seq: this.seq, acked: false, expectedNacks: 0, nacks: 0 }
    const updates = this.piggyback(this.buddy(target))
    // Our own alive news on every probe, room permitting: a member the join's gossip missed
    // learns of us from our first ping to it, instead of ignoring us for ever.
    const introduce = this.leaving === undefined && !updates.some((u) => u.node === this.self)
    if (introduce && updates.length < this.settings.maxPiggyback) {
      updates.push({
        kind: 'alive',
        node: this.self,
        incarnation: this.incarnation,
        from: this.self,
      })
    }
    ctx.send(target, { type: 'ping', seq: this.seq, updates })
    ctx.setTimer(PROBE_TIMEOUT, this.scaled(this.settings.probeTimeoutMs))
  }

  /** No direct ack in time: ask k other live members to ping the target for us. */
  private indirect(ctx: SwimCtx) {
    const p = this.probe
    if (p === undefined || p.acked) return
    const others = this.members
      .live()
      .filter((id) => id !== p.target && this.members.get(id)!.state === 'alive')
    const helpers = pick(others, this.settings.indirectChecks, ctx)
    for (const h of helpers) {
      ctx.send(h, { type: 'ping-req', seq: p.seq, target: p.target, updates: this.piggyback() })
    }
    p.expectedNacks = this.settings.nacks ? helpers.length : 0
  }

  private onAck(seq: number, ctx: SwimCtx) {
    const p = this.probe
    if (p !== undefined && p.seq === seq && !p.acked) {
      p.acked = true
      ctx.cancelTimer(PROBE_TIMEOUT)
      this.adjustHealth(-1, ctx)
      return
    }
    const relay = this.relays.get(seq)
    if (relay === undefined) return
    this.relays.delete(seq)
    ctx.cancelTimer(`${RELAY}${seq}`)
    ctx.send(relay.requester, { type: 'ack', seq: relay.seq, updates: this.piggyback() })
  }

  /**
   * News about a member, from a message (`sender` sent it) or from this node's own probe (sender
   * itself: nothing to doubt). What a peer says passes the guards first (guard.ts).
   */
  private apply(u: MemberUpdate, ctx: SwimCtx, sender: NodeId = this.self): void {
    if (u.node === this.self) {
      if (u.kind !== 'alive' && unrefutable(u)) this.refuse(u, sender, 'incarnation', ctx)
      else this.aboutSelf(u, ctx, sender)
      return
    }
    const known = this.members.get(u.node)
    if (sender !== this.self) {
      const suspicion = this.suspicions.get(u.node)
      const refusal = doubt(u, known, sender, {
        admitted: this.admitted,
        suspicion,
        nowMs: ctx.monotonic(),
        timeoutMs:
          suspicion === undefined
            ? Number.POSITIVE_INFINITY
            : suspicionTimeout(this.bounds, suspicion.reporters.size - 1),
      })
      if (refusal === 'unripe-death') {
        this.refuse(u, sender, refusal, ctx)
        this.apply({ ...u, kind: 'suspect' }, ctx, sender)
        return
      }
      if (refusal !== undefined) {
        this.refuse(u, sender, refusal, ctx)
        return
      }
      if (this.admitted !== undefined && !this.admitted.has(u.node)) return // old news of a member gone
    }
    if (known === undefined) {
      this.admitStranger(u, ctx, sender)
      return
    }
    const applied = this.members.apply(u, ctx.monotonic())
    if (applied === 'stale') return
    if (applied === 'confirm') {
      const s = this.suspicions.get(u.node)
      if (s === undefined || s.reporters.has(u.from)) return
      // A confirmation counts only from the member that says it: a `from` passed on by another
      // could be forged, and forged confirmations would cut the suspicion to its least.
      if (sender !== this.self && sender !== u.from) return
      s.reporters.add(u.from)
      this.gossip.add(u) // a confirmation is news to pass on: it shortens others' timeouts too
      this.armSuspicion(u.node, s, ctx)
      return
    }
    this.gossip.add(u)
    if (u.kind === 'suspect') {
      const s: Suspicion = {
        incarnation: u.incarnation,
        startMs: ctx.monotonic(),
        reporters: new Set([u.from]),
      }
      this.suspicions.set(u.node, s)
      this.armSuspicion(u.node, s, ctx)
      ctx.emit({ type: 'suspect', node: u.node, incarnation: u.incarnation, from: u.from })
      return
    }
    const held = this.suspicions.get(u.node)
    this.suspicions.delete(u.node)
    ctx.cancelTimer(suspicionTimer(u.node))
    if (u.kind === 'dead') {
      ctx.emit({
        type: 'dead',
        node: u.node,
        incarnation: u.incarnation,
        from: u.from,
        confirmations: u.from === this.self && held ? held.reporters.size - 1 : 0,
      })
    } else if (u.kind === 'alive' && applied.before !== 'alive') {
      ctx.emit({ type: 'alive', node: u.node, incarnation: u.incarnation, from: u.from })
    }
    if (u.kind === 'alive' && isGone(applied.before)) this.entered(u.node, u.incarnation, ctx)
    if (u.kind !== 'alive' && !isGone(applied.before)) {
      this.view.leave(u.node)
      const reason = u.kind === 'left' ? 'left' : 'dead'
      ctx.emit({ type: 'member-left', node: u.node, incarnation: u.incarnation, reason })
    }
  }

  /**
   * News of a node we do not hold: a join (alive), or a tombstone to keep (dead or left), while
   * the list has room. A suspicion of a stranger is nobody's business here.
   */
  private admitStranger(u: MemberUpdate, ctx: SwimCtx, sender: NodeId) {
    if (u.kind === 'suspect') return
    if (this.members.size + 1 >= this.settings.maxMembers) {
      if (u.kind === 'alive') this.refuse(u, sender, 'full', ctx)
      return
    }
    this.members.admit(u.node, u.kind, u.incarnation, ctx.monotonic())
    this.gossip.add(u)
    if (u.kind === 'alive') this.entered(u.node, u.incarnation, ctx)
  }

  private refuse(u: MemberUpdate, from: NodeId, reason: SwimRefusal, ctx: SwimCtx) {
    const { node, kind, incarnation } = u
    ctx.emit({ type: 'refused', node, kind, incarnation, from, reason })
  }

  /** The agreed membership's members: only they may enter; a live member out of them leaves. */
  private admit(members: NodeId[], ctx: SwimCtx) {
    this.admitted = new Set(members)
    const now = ctx.monotonic()
    for (const node of this.members.live()) {
      if (this.admitted.has(node)) continue
      const { incarnation } = this.members.get(node)!
      this.members.admit(node, 'left', incarnation, now)
      this.suspicions.delete(node)
      ctx.cancelTimer(suspicionTimer(node))
      this.view.leave(node)
      ctx.emit({ type: 'member-left', node, incarnation, reason: 'left' })
    }
  }

  private entered(node: NodeId, incarnation: number, ctx: SwimCtx) {
    this.view.join(node)
    ctx.emit({ type: 'member-joined', node, incarnation })
  }

  private seeds(): NodeId[] {
    return this.settings.seeds.filter((id) => id !== this.self)
  }

  /** Joining: one seed after another, a period apart, until one welcomes us. */
  private askSeed(ctx: SwimCtx) {
    if (this.joined) return
    const seeds = this.seeds()
    const seed = seeds[this.joinAttempts % seeds.length]!
    this.joinAttempts += 1
    ctx.send(seed, { type: 'join', incarnation: this.incarnation })
    ctx.setTimer(JOIN, this.settings.periodMs)
  }

  /** A seed: admit the joiner (its alive news spreads by gossip) and send it our member list. */
  private onJoin(from: NodeId, incarnation: number, ctx: SwimCtx) {
    if (!this.joined || this.leaving !== undefined || from === this.self) {
      return ctx.emit({ type: 'ignored', from, reason: 'join while not in a group' })
    }
    const known = this.members.get(from) !== undefined
    if (this.admitted !== undefined && !this.admitted.has(from)) {
      const news = { kind: 'alive' as const, node: from, incarnation, from }
      return this.refuse(news, from, 'not-admitted', ctx)
    }
    if (!known && this.members.size + 1 >= this.settings.maxMembers) {
      return ctx.emit({ type: 'ignored', from, reason: 'join refused: the group is full' })
    }
    // Known dead or left in this incarnation: the news stays, the welcome tells it, it refutes.
    this.apply({ kind: 'alive', node: from, incarnation, from }, ctx)
    const members = [
      { node: this.self, state: 'alive' as const, incarnation: this.incarnation },
      ...this.members
        .snapshot()
        .map(({ node, state, incarnation }) => ({ node, state, incarnation })),
    ]
    ctx.send(from, { type: 'welcome', members })
  }

  /** Joining: the seed's member list becomes ours, and we announce ourselves. */
  private onWelcome(from: NodeId, entries: MemberEntry[], ctx: SwimCtx) {
    if (this.joined || !this.seeds().includes(from)) {
      return ctx.emit({ type: 'ignored', from, reason: 'welcome not asked for' })
    }
    this.joined = true
    ctx.cancelTimer(JOIN)
    this.gossip.add({
      kind: 'alive',
      node: this.self,
      incarnation: this.incarnation,
      from: this.self,
    })
    for (const e of entries) {
      // A suspicion is the seed's; our own probes will judge.
      const kind = e.state === 'suspect' ? 'alive' : e.state
      this.apply({ kind, node: e.node, incarnation: e.incarnation, from }, ctx, from)
    }
  }

  private leaveNews(): MemberUpdate {
    return { kind: 'left', node: this.self, incarnation: this.incarnation, from: this.self }
  }

  /** Each period of a leave, straight to k + 1 members besides the gossip: nobody should miss it. */
  private announceLeave(ctx: SwimCtx) {
    const to = pick(this.members.live(), this.settings.indirectChecks + 1, ctx)
    for (const member of to) {
      this.seq += 1
      ctx.send(member, { type: 'ping', seq: this.seq, updates: this.piggyback(this.leaveNews()) })
    }
  }

  /** The leave is over (or there was no group): no timer, no answer from now on. */
  private stop(ctx: SwimCtx) {
    this.stopped = true
    this.leaving = undefined
    for (const key of [PROBE, PROBE_TIMEOUT, JOIN]) ctx.cancelTimer(key)
    for (const node of this.suspicions.keys()) ctx.cancelTimer(suspicionTimer(node))
    for (const seq of this.relays.keys()) ctx.cancelTimer(`${RELAY}${seq}`)
    this.suspicions.clear()
    this.relays.clear()
    this.probe = undefined
    this.order = []
    this.next = 0
    this.view.leave(this.self)
    ctx.emit({
      type: 'member-left',
      node: this.self,
      incarnation: this.incarnation,
      reason: 'left',
    })
  }

  private forgetTombstones(now: number) {
    const keepMs = this.settings.tombstonePeriods * this.settings.periodMs
    this.members.forget(now - keepMs)
  }

  /** The view changed during this step: new timeouts for the group's size, and one `view` event. */
  private publish(ctx: SwimCtx) {
    const change = this.view.take()
    if (change === undefined) return
    this.resize()
    const members = this.stopped ? [] : sortNodeIds([this.self, ...this.members.live()])
    ctx.emit({ type: 'view', ...change, members })
  }

  /** Suspicion timeouts and retransmissions follow the group's size (self included). */
  private resize() {
    const n = this.members.liveCount() + 1
    const s = this.settings
    const { periodMs, suspicionMult, suspicionMaxMult, dynamicSuspicion } = s
    this.bounds = suspicionBounds(n, periodMs, suspicionMult, suspicionMaxMult, dynamicSuspicion)
    this.retransmits = s.retransmitMult * Math.ceil(Math.log10(n + 1))
  }

  /** Suspected or declared dead ourselves: refute in a higher incarnation. */
  private aboutSelf(u: MemberUpdate, ctx: SwimCtx, sender: NodeId) {
    if (u.kind === 'alive') return
    // Leaving, we do not argue: the leave is the answer to a suspicion.
    if (this.leaving !== undefined) return this.gossip.add(this.leaveNews())
    const alive = (incarnation: number): MemberUpdate => ({
      kind: 'alive',
      node: this.self,
      incarnation,
      from: this.self,
    })
    if (u.incarnation < this.incarnation) {
      // Refuted already, but someone still holds the old news: the refutation missed it, so it
      // goes out again (on the ack to a buddy ping, first of all).
      this.gossip.add(alive(this.incarnation))
    } else {
      this.incarnation = u.incarnation + 1
      this.gossip.add(alive(this.incarnation))
      ctx.emit({ type: 'refute', incarnation: this.incarnation, from: u.from })
      // Lifeguard: being suspected hints that we are the slow one.
      this.adjustHealth(1, ctx)
    }
    // The sender itself holds us gone (its reminder, on an ack we cannot answer): it no longer
    // probes us, and the gossip may not reach it for long (a flood of other news), so tell it.
    if (isGone(u.kind) && u.from === sender && sender !== this.self) {
      this.seq += 1
      ctx.send(sender, { type: 'ping', seq: this.seq, updates: [alive(this.incarnation)] })
    }
  }

  private armSuspicion(node: NodeId, s: Suspicion, ctx: SwimCtx) {
    const timeout = suspicionTimeout(this.bounds, s.reporters.size - 1)
    const left = timeout - (ctx.monotonic() - s.startMs)
    ctx.setTimer(suspicionTimer(node), Math.max(0, left))
  }

  private expire(node: NodeId, s: Suspicion, ctx: SwimCtx) {
    const timeout = suspicionTimeout(this.bounds, s.reporters.size - 1)
    // Under a ms left is rounding of the readings, not time: re-arming it would spin in place.
    if (timeout - (ctx.monotonic() - s.startMs) >= 1) return this.armSuspicion(node, s, ctx)
    this.apply({ kind: 'dead', node, incarnation: s.incarnation, from: this.self }, ctx)
  }

  /** Lifeguard's buddy system: a ping to a member we suspect tells it first. */
  private buddy(target: NodeId): MemberUpdate | undefined {
    const m = this.members.get(target)
    if (!this.settings.buddy || m?.state !== 'suspect') return undefined
    const s = this.suspicions.get(target)
    const from = s ? sortNodeIds(s.reporters)[0]! : this.self
    return { kind: 'suspect', node: target, incarnation: m.incarnation, from }
  }

  private piggyback(first?: MemberUpdate): MemberUpdate[] {
    // Our own news (a refutation) first: a flood of other news must not starve it.
    return this.gossip.take(this.settings.maxPiggyback, this.retransmits, first, this.self)
  }

  /** Shuffled round-robin: every live member once per round, in a fresh random order each round. */
  private nextTarget(ctx: SwimCtx): NodeId | undefined {
    for (let tries = 0; tries <= 2 * (this.members.size + 1); tries++) {
      if (this.next >= this.order.length) {
        this.order = shuffle(this.members.live(), ctx)
        this.next = 0
        if (this.order.length === 0) return undefined
      }
      const candidate = this.order[this.next++]!
      const m = this.members.get(candidate)
      if (m !== undefined && !isGone(m.state)) return candidate
    }
    return undefined
  }

  private scaled(ms: number): number {
    return ms * (this.health + 1)
  }

  private adjustHealth(delta: number, ctx: SwimCtx) {
    if (!this.settings.localHealth) return
    const score = Math.min(this.settings.maxLocalHealth, Math.max(0, this.health + delta))
    if (score === this.health) return
    this.health = score
    ctx.emit({ type: 'health', score })
  }
}

function shuffle(ids: NodeId[], ctx: SwimCtx): NodeId[] {
  const out = [...ids]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(ctx.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** Up to `k` of `ids`, chosen at random. */
function pick(ids: NodeId[], k: number, ctx: SwimCtx): NodeId[] {
  return shuffle(ids, ctx).slice(0, k)
}

/** SWIM with Lifeguard over the peers at start, or joined through `seeds` (see SwimOptions for what is tunable). */
export function swim(options?: SwimOptions): ProtocolFactory<SwimMessage, SwimRequest, SwimEvent> {
  const settings = resolveOptions(options)
  return (self) => new SwimNode(self, settings)
}
