/**
 * A message in flight, kept small: a million of them is a simulator's worst memory case. It holds
 * five fields (due time, queue order, the message, its route, and one number for its place on the
 * link and its flags); what only some runs read is derived (its key, its ends, its link's name)
 * or kept beside it (the explorer's message hash), and what only a trace reads (message id, send
 * time, protocol name) lives in `FullDelivery`, made when the network keeps a trace or an explorer
 * drives it (which asks for keys and hashes state after state: it keeps them there once made).
 */
import type { Hash64 } from '../hash64.js'
import type { Route } from './link-name.js'
import type { SimNode } from './sim-node.js'

/** `tag` is `number on its link * 4 + COPY + CANCELLED`, in arithmetic: exact up to 2^51 messages. */
const CANCELLED = 1
const COPY = 2

/**
 * The hash of a plain delivery's message text, once computed: beside the event, not in it, as most
 * runs never ask (the network an explorer drives makes `FullDelivery`s, which keep their own).
 * Copies (`copy`) carry it along with the message.
 */
const msgHashes = new WeakMap<Delivery, Hash64>()

/**
 * The hash of what a key abstraction keeps of the message, for the context it was made in: a
 * message stays in flight through many states, and the context changes seldom (see
 * `abstractMessageHash`). Only the explorer asks, and it drives `FullDelivery`s, which keep it.
 */
export interface AbstractedHash {
  of: object
  context: string | number | boolean
  rename: object
  /** Null: the abstraction leaves the message out of the key. */
  hash: Hash64 | null
}

/**
 * Built as an ES2022 class, its fields are defined (undefined) before they are set: V8 then keeps
 * them tagged, so a whole-number `t` sits in the object, where a field V8 typed as double boxes
 * every value once some run (fractional latencies) stored a fraction (16 B more a message).
 */
export class Delivery {
  /** See `CANCELLED`, `COPY`. */
  private tag: number

  constructor(
    public t: number,
    public seq: number,
    readonly msg: unknown,
    readonly route: Route,
    number: number,
    copies: number,
  ) {
    this.tag = number * 4 + (copies > 0 ? COPY : 0)
  }

  get kind(): 'deliver' {
    return 'deliver'
  }

  get cancelled(): boolean {
    return this.tag % 2 === CANCELLED
  }

  set cancelled(value: boolean) {
    if (value !== this.cancelled) this.tag += value ? CANCELLED : -CANCELLED
  }

  /** Its number among the messages sent on its link (from 1). */
  get number(): number {
    return Math.floor(this.tag / 4)
  }

  /** How many times it was copied from the message sent (a duplicate is one). */
  get copies(): number {
    return this.tag % 4 >= COPY ? 1 : 0
  }

  /** A copy made by duplication (its key ends in `+d`). */
  get duplicate(): boolean {
    return this.copies > 0
  }

  /**
   * Stable across schedules that differ only in independent choices (see `SimNetwork.choices`):
   * `m:1>2#3` is the third message from 1 to 2, `m:1>2#3+d` its duplicate. Built when asked.
   */
  get key(): string {
    const copies = this.copies
    const key = this.route.keyPrefix + this.number
    return copies === 0 ? key : copies === 1 ? `${key}+d` : key + '+d'.repeat(copies)
  }

  get from(): SimNode {
    return this.route.from
  }

  get to(): SimNode {
    return this.route.to
  }

  /** Its link's name (`routeOf(from, to)`). */
  get link(): Route {
    return this.route
  }

  /** The message's id in the trace (0 when the network keeps none). */
  get id(): number {
    return 0
  }

  /** When it was sent (only a trace reads it: NaN when the network keeps none). */
  get sentAt(): number {
    return Number.NaN
  }

  /** The composed protocol's child that sent it (only a trace reads it). */
  get proto(): string | undefined {
    return undefined
  }

  /** The hash of its message's canonical text, once computed (for a state key). */
  get msgHash(): Hash64 | undefined {
    return msgHashes.get(this)
  }

  set msgHash(hash: Hash64 | undefined) {
    if (hash === undefined) msgHashes.delete(this)
    else msgHashes.set(this, hash)
  }

  /** See `AbstractedHash`: a plain delivery keeps none. */
  get abstracted(): AbstractedHash[] | undefined {
    return undefined
  }

  set abstracted(_: AbstractedHash[] | undefined) {}

  /** This delivery as a `FullDelivery` (itself if it is one): the same in every field. */
  full(): Delivery {
    if (this instanceof FullDelivery || this.cancelled) return this
    return this.copy(false, true)
  }

  /** A live copy; `duplicate`: one more copy of the message (its key gains a `+d`). */
  copy(duplicate: boolean, full = false): Delivery {
    const copies = this.copies + (duplicate ? 1 : 0)
    const made =
      full || copies > 1 || this instanceof FullDelivery
        ? new FullDelivery(this.t, this.seq, this.msg, this.route, this.number, copies, {
            id: this.id,
            sentAt: this.sentAt,
            proto: this.proto,
          })
        : new Delivery(this.t, this.seq, this.msg, this.route, this.number, copies)
    const hash = this.msgHash
    if (hash !== undefined) made.msgHash = hash
    // A duplicate's key differs (its copy count), not what the abstraction keeps of its message.
    made.abstracted = this.abstracted
    return made
  }
}

/** What a trace reads of a message in flight. */
export interface TraceFields {
  id: number
  sentAt: number
  proto: string | undefined
}

/**
 * A delivery with every field: of a network that keeps a trace or that an explorer drives (its key
 * and message hash kept once made), or a copy of a copy (it counts its copies).
 */
export class FullDelivery extends Delivery {
  private readonly traceId: number
  private readonly sentTime: number
  private readonly sentBy: string | undefined
  private readonly copyCount: number
  private name: string | undefined = undefined
  private hashOfMsg: Hash64 | undefined = undefined
  private abstractedHash: AbstractedHash[] | undefined = undefined

  constructor(
    t: number,
    seq: number,
    msg: unknown,
    route: Route,
    number: number,
    copies: number,
    traced: TraceFields,
  ) {
    super(t, seq, msg, route, number, copies)
    this.traceId = traced.id
    this.sentTime = traced.sentAt
    this.sentBy = traced.proto
    this.copyCount = copies
  }

  override get copies(): number {
    return this.copyCount
  }

  override get key(): string {
    this.name ??= super.key
    return this.name
  }

  override get id(): number {
    return this.traceId
  }

  override get sentAt(): number {
    return this.sentTime
  }

  override get proto(): string | undefined {
    return this.sentBy
  }

  override get msgHash(): Hash64 | undefined {
    return this.hashOfMsg
  }

  override set msgHash(hash: Hash64 | undefined) {
    this.hashOfMsg = hash
  }

  override get abstracted(): AbstractedHash[] | undefined {
    return this.abstractedHash
  }

  override set abstracted(hash: AbstractedHash[] | undefined) {
    this.abstractedHash = hash
  }
}
