/**
 * One protocol instance driven by hand for `checkSnapshots`: inputs in, every effect recorded
 * (sends, emits, timers set and cancelled, storage writes) as text that compares exactly.
 */
import { canonicalKey } from '../canonical.js'
import type { NodeId } from '../ids.js'
import type { Ctx, Protocol, ProtocolFactory } from '../protocol.js'
import { createRandom } from '../random.js'
import type { JsonValue } from '../storage/json.js'

/** An input `checkSnapshots` feeds: a message from a peer, a timer (if set), a local request. */
export type SnapshotInput<Msg, Req = never> =
  | { kind: 'message'; from: NodeId; msg: Msg }
  | { kind: 'timer'; key: string }
  | { kind: 'request'; req: Req }

/** Data as text, for effects: canonical when plain, JSON's best effort otherwise. */
export function textOf(value: unknown): string {
  try {
    return canonicalKey(value)
  } catch {
    return JSON.stringify(value) ?? String(value)
  }
}

export class SnapshotHarness<Msg, Req, Ev> {
  readonly protocol: Protocol<Msg, Req, Ev>
  readonly storage = new Map<string, JsonValue>()
  readonly timers = new Set<string>()
  /** The effects of the input being handled. */
  private effects: string[] = []
  private random: () => number

  constructor(
    factory: ProtocolFactory<Msg, Req, Ev>,
    readonly self: NodeId,
    readonly peers: readonly NodeId[],
    randomSeed: string,
  ) {
    this.ctx = this.makeCtx()
    this.protocol = factory(self)
    this.random = createRandom(randomSeed).next
  }

  /** From here on `ctx.random` gives this stream (two instances compared draw alike). */
  reseed(seed: string): void {
    this.random = createRandom(seed).next
  }

  /**
   * Makes this instance, fresh and not started, take on `other`'s state: its protocol's snapshot
   * (as JSON text and back: a copy) through `restore`, and its storage and timers set. Returns
   * what `restore` was given and its text then: with `restoreCopies` it must stay so.
   */
  restoreFrom(other: SnapshotHarness<Msg, Req, Ev>): { given: unknown; text: string } {
    const text = canonicalKey(other.protocol.snapshot!(), 'snapshot')
    const given: unknown = JSON.parse(text)
    this.protocol.restore!(given)
    for (const [key, value] of other.storage) this.storage.set(key, structuredClone(value))
    for (const key of other.timers) this.timers.add(key)
    return { given, text }
  }

  /** The protocol's snapshot as canonical text. */
  snapshotText(): string {
    return canonicalKey(this.protocol.snapshot!(), 'snapshot')
  }

  /** Handles `start`; returns its effects. */
  start(): string[] {
    return this.run((ctx) => this.protocol.start?.(ctx))
  }

  /** Handles an input; returns its effects, or undefined for a timer that is not set. */
  feed(input: SnapshotInput<Msg, Req>): string[] | undefined {
    const p = this.protocol
    if (input.kind === 'message') return this.run((ctx) => p.onMessage(input.from, input.msg, ctx))
    if (input.kind === 'request') return this.run((ctx) => p.onRequest?.(input.req, ctx))
    if (!this.timers.delete(input.key)) return undefined
    return this.run((ctx) => p.onTimer?.(input.key, ctx))
  }

  /** The stable storage as canonical text. */
  storageText(): string {
    return canonicalKey(Object.fromEntries(this.storage), 'storage')
  }

  private run(body: (ctx: Ctx<Msg, Ev>) => void): string[] {
    this.effects = []
    body(this.ctx)
    return this.effects
  }

  private readonly ctx: Ctx<Msg, Ev>

  private makeCtx(): Ctx<Msg, Ev> {
    return {
      self: this.self,
      peers: this.peers,
      // The clock stands still: time is the runtime's to give, and both runs compared read alike.
      now: () => 0,
      monotonic: () => 0,
      send: (to, msg) => this.effects.push(`send ${String(to)} ${textOf(msg)}`),
      broadcast: (msg) => {
        for (const to of this.peers) this.ctx.send(to, msg)
      },
      setTimer: (key, ms) => {
        this.timers.add(key)
        this.effects.push(`timer ${key} ${ms}`)
      },
      cancelTimer: (key) => {
        if (this.timers.delete(key)) this.effects.push(`cancel ${key}`)
      },
      random: () => this.random(),
      emit: (event) => this.effects.push(`emit ${textOf(event)}`),
      storage: {
        get: (key) => this.storage.get(key),
        set: (key, value) => {
          this.storage.set(key, structuredClone(value))
          this.effects.push(`write ${key} ${textOf(value)}`)
        },
        delete: (key) => {
          this.storage.delete(key)
          this.effects.push(`delete ${key}`)
        },
        keys: () => [...this.storage.keys()].sort(),
      },
    }
  }
}
