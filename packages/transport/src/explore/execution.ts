/**
 * One execution of a scenario under a chosen schedule: a fresh simulator, the scenario's setup,
 * then one token at a time, the invariant checked after each. Re-running the same tokens gives
 * the same execution (the simulator is deterministic), which is what makes the explorer stateless.
 */

import { canonicalKey, stateHash } from '../canonical.js'
import { InvalidArgumentError } from '../errors.js'
import { type Hash64, hashHex, hashText, Mixer } from '../hash64.js'
import type { NodeId } from '../ids.js'
import type { SimCheckpoint } from '../sim/checkpoint.js'
import type { Choice } from '../sim/control.js'
import type { KeyTaken } from '../sim/key-abstraction.js'
import { messageText } from '../sim/message-text.js'
import { SimNetwork } from '../sim/network.js'
import { apply, clockStepToken, crashToken, pauseToken, type Token, tokenOf } from './token.js'
import type { ExploreOptions, ExploreScenario } from './types.js'

/** How long an injected pause lasts, and how far an injected clock step goes, by default. */
export const DEFAULT_PAUSE_MS = 1000
export const DEFAULT_CLOCK_STEP_MS = -1000

export class Execution {
  readonly net: SimNetwork
  readonly events: Array<{ node: NodeId; t: number; event: unknown }> = []
  readonly tokens: Token[] = []
  // Keys in canonical order: the state key written of it need not sort them.
  readonly used = { clockStep: 0, crash: 0, duplicate: 0, loss: 0, pause: 0 }
  private readonly nodesById = new Map<string, NodeId>()
  /** Per event in `events` (a prefix): its node's events up to it, hashed (`terminalKey`). */
  private readonly chains: Hash64[] = []
  /** Per event in `chains`: the index of its node's event before it, or -1. */
  private readonly previousOfNode: number[] = []
  /** Each node's last event among those `chains` covers, by `String(node)`. */
  private readonly lastOfNode = new Map<string, number>()
  /** `JSON.stringify` of each event in `events`, as far as `fingerprint` wrote them (a prefix). */
  private readonly eventJson: string[] = []
  /** Choices met so far by key (see `happening`). */
  private readonly known = new Map<string, KnownChoice>()
  /** Set when the invariant broke. */
  violation: string | undefined

  /** @param labels name tokens apart from the path (`Token.label`), for stateful exploration */
  constructor(
    private readonly scenario: ExploreScenario,
    trace: boolean,
    private readonly labels = false,
  ) {
    this.net = new SimNetwork({ seed: scenario.seed ?? 1, trace, fifo: scenario.fifo ?? true })
    this.net.onEmit((node, event, t) => this.events.push({ node, t, event }))
    scenario.setup(this.net)
    for (const id of this.net.nodeIds) this.nodesById.set(String(id), id)
    this.check()
  }

  /** The tokens that may come next within the bounds, in a fixed order. */
  options(options: ExploreOptions): Token[] {
    const until = options.until ?? Number.POSITIVE_INFINITY
    const faults = options.faults ?? {}
    const u = this.used
    const used = u.loss + u.duplicate + u.crash + u.pause + u.clockStep
    const budget = used < (faults.total ?? Number.POSITIVE_INFINITY)
    const out: Token[] = []
    for (const choice of this.net.choices(options.timers ?? 'in-order')) {
      if (choice.t > until && choice.kind !== 'deliver') continue
      const known = this.happening(choice)
      out.push(known.token)
      if (choice.kind !== 'deliver') continue
      const what = known.what
      if (budget && this.used.loss < (faults.loss ?? 0))
        out.push(labelled(tokenOf(choice, 'drop'), what))
      if (budget && this.used.duplicate < (faults.duplicate ?? 0) && !choice.key.endsWith('+d'))
        out.push(labelled(tokenOf(choice, 'duplicate'), what))
    }
    if (budget && this.used.crash < (faults.crash ?? 0)) {
      for (const node of options.crashable ?? this.net.nodeIds)
        if (!this.net.isCrashed(node)) out.push(crashToken(node))
    }
    if (budget && this.used.pause < (faults.pause ?? 0)) {
      for (const node of options.pausable ?? this.net.nodeIds)
        if (!this.net.isCrashed(node) && !this.net.isPaused(node))
          out.push(pauseToken(node, options.pauseMs ?? DEFAULT_PAUSE_MS))
    }
    if (budget && this.used.clockStep < (faults.clockStep ?? 0)) {
      for (const node of options.steppable ?? this.net.nodeIds)
        if (!this.net.isCrashed(node))
          out.push(clockStepToken(node, options.clockStepMs ?? DEFAULT_CLOCK_STEP_MS))
    }
    return out
  }

  /**
   * The token that makes `choice` happen, with what it does (`describe`), made once for as long
   * as its key names the same event: a state's choices are mostly the last state's, and their
   * labels (a message's text) were written for it already.
   */
  private happening(choice: Choice): KnownChoice {
    const known = this.known.get(choice.key)
    if (
      known !== undefined &&
      known.msg === choice.msg &&
      known.t === choice.t &&
      known.kind === choice.kind &&
      known.owner === choice.owner &&
      known.label === choice.label &&
      known.from === choice.from &&
      known.to === choice.to
    )
      return known
    // On a FIFO link the message offered is its link's oldest, so the link names it: in every
    // state with the same key (two states an abstraction merges may hold one message with
    // different dead fields), and along a path, since only a delivery to the receiver or a fault
    // on the link changes the head, and neither is independent of it. Cheaper than its text too.
    const what = !this.labels ? undefined : nameOf(choice, writeOnce)
    const made: KnownChoice = {
      msg: choice.msg,
      t: choice.t,
      kind: choice.kind,
      owner: choice.owner,
      label: choice.label,
      from: choice.from,
      to: choice.to,
      what,
      token: labelled(tokenOf(choice, 'happen'), what),
    }
    this.known.set(choice.key, made)
    return made
  }

  /**
   * The state's hash: the network's fingerprint, the fault budget used, and what the invariant
   * remembers of the past (`scenario.history`, by default each node's emitted events in order).
   * Undefined when the network has no fingerprint (a protocol without `snapshot()`).
   */
  stateKey(): string | undefined {
    const net = this.net.keyFingerprint()
    if (net === undefined) return undefined
    const history = this.scenario.history ?? eventsByNode
    const side = this.scenario.sideState
    const parts = [net, this.used, history(this.events)]
    return stateHash(side ? [...parts, side.save(this.net)] : parts, 'state')
  }

  /**
   * `stateKey()` as numbers, into `into`: the same state gives the same hash, told apart as the
   * key tells them (64-bit hash compaction, as `stateKey`), without writing the key's text.
   * False when the network has no fingerprint.
   */
  keyHash(into: Hash64, taken?: KeyTaken): boolean {
    if (!this.net.keyHash(netHash, this.scenario.abstraction, taken)) return false
    const u = this.used
    const m = stateMixer.reset().pair(netHash)
    m.word(u.clockStep).word(u.crash).word(u.duplicate).word(u.loss).word(u.pause)
    const history = (this.scenario.history ?? eventsByNode)(this.events)
    const side = this.scenario.sideState
    // Names in the history and side state stay concrete: a renamed key cannot hold them.
    if (taken?.rename !== undefined && (history !== null || side !== undefined))
      throw new InvalidArgumentError(
        'explore: a key abstraction that renames nodes needs a scenario without history or side state in the key (history: () => null)',
      )
    if (history === null) m.word(0)
    else m.word(1).pair(hashText(canonicalKey(history, 'state history')))
    if (side) m.pair(hashText(canonicalKey(side.save(this.net), 'side state')))
    m.finish(into)
    return true
  }

  /**
   * `token`'s label in the naming of a key abstraction's renaming (`KeyTaken.rename`): what the
   * stateful search compares sleep sets by when states are keyed renamed. A delivery is named by
   * its renamed link (FIFO links only, as a renaming needs: the link's oldest message), a timer
   * by its renamed owner, label and time, a request by its renamed owner's key.
   */
  renamedLabel(token: Token, rename: (id: NodeId) => NodeId): string {
    const r = (id: NodeId | undefined) => String(id === undefined ? id : rename(id))
    if (token.how === 'crash') return `crash:${r(token.owner)}`
    if (token.how === 'pause' || token.how === 'clock-step')
      return `${token.how}:${r(token.owner)}${token.key.slice(token.key.lastIndexOf('@'))}`
    const known = this.known.get(token.key)
    if (known === undefined) return token.label ?? token.id
    if (known.kind === 'deliver') {
      const copy = token.key.endsWith('+d') ? ' copy' : ''
      return `${token.how} ${r(known.from)}>${r(known.to)}${copy} head`
    }
    if (known.kind === 'timer')
      return `${token.how} timer ${r(known.owner)} ${known.label} @${known.t}`
    const prefix = `r:${String(known.owner)}#`
    if (known.kind === 'request' && token.key.startsWith(prefix))
      return `${token.how} r:${r(known.owner)}#${token.key.slice(prefix.length)}`
    return `${token.how} ${token.key}`
  }

  /**
   * What weak fairness owes something to, bounds aside: the head of each FIFO link (any message
   * on a link that reorders), each timer, request and planned action pending. Named as the
   * labels name the choices that discharge them (`nameOf`).
   */
  pendingTasks(): string[] {
    return this.net.choices('any-order').map((choice) => nameOf(choice))
  }

  /**
   * This execution's state, to come back to with `load` instead of replaying its tokens;
   * undefined when some running protocol has no `restore` (see `SimNetwork.checkpoint`).
   */
  save(): ExecutionCheckpoint | undefined {
    if (this.violation !== undefined) return undefined
    const net = this.net.checkpoint()
    if (net === undefined) return undefined
    const side = this.scenario.sideState
    return {
      net,
      events: this.events.length,
      tokens: this.tokens.length,
      used: { ...this.used },
      ...(side && { side: side.save(this.net) }),
    }
  }

  /** Goes back to a state `save` gave (of this execution, on this path: it only truncates). */
  load(saved: ExecutionCheckpoint): void {
    this.net.restoreCheckpoint(saved.net)
    this.scenario.sideState?.restore(this.net, saved.side)
    this.events.length = saved.events
    if (this.eventJson.length > saved.events) this.eventJson.length = saved.events
    if (this.chains.length > saved.events) this.cutChains(saved.events)
    this.tokens.length = saved.tokens
    Object.assign(this.used, saved.used)
    this.violation = undefined
  }

  /** Carries out `token`; false if it no longer applies. Checks the invariant after it. */
  step(token: Token): boolean {
    if (!apply(this.net, token, this.nodesById)) return false
    this.tokens.push(token)
    if (token.how === 'drop') this.used.loss++
    else if (token.how === 'duplicate') this.used.duplicate++
    else if (token.how === 'crash') this.used.crash++
    else if (token.how === 'pause') this.used.pause++
    else if (token.how === 'clock-step') this.used.clockStep++
    this.check()
    return true
  }

  /** Lets virtual time decide the rest (at most `maxSteps` events), checking after each. */
  finish(maxSteps: number, until = Number.POSITIVE_INFINITY): void {
    for (let i = 0; i < maxSteps && this.violation === undefined; i++) {
      const next = this.net.choices('in-order')
      if (next.length === 0) return
      // The earliest event by virtual time (messages keep their sampled delay).
      let pick = next[0]!
      for (const c of next) if (c.t < pick.t) pick = c
      if (pick.t > until) return
      this.net.take(pick.key, 'happen', 'due')
      this.check()
    }
  }

  /**
   * `fingerprint()` as a 64-bit hash, in hex (equal fingerprints give equal keys; two different
   * ones collide with probability 2^-64), without writing it: each event's JSON is hashed once,
   * and chained to its node's events before it. The stateful search counts terminal states by it.
   */
  terminalKey(): string {
    const events = this.events
    const chains = this.chains
    for (let i = chains.length; i < events.length; i++) {
      const { node, event } = events[i]!
      const key = String(node)
      const before = this.lastOfNode.get(key) ?? -1
      const own = hashText(JSON.stringify(event) ?? 'null')
      chains.push(
        chainMixer
          .reset()
          .pair(before < 0 ? NO_EVENTS : chains[before]!)
          .pair(own)
          .finish({ hi: 0, lo: 0 }),
      )
      this.previousOfNode.push(before)
      this.lastOfNode.set(key, i)
    }
    // Each node's last event stands for its whole list; nodes in the order `fingerprint` sorts.
    const last = this.lastOfNode
    const m = chainMixer.reset()
    for (const key of [...last.keys()].sort()) m.pair(hashText(key)).pair(chains[last.get(key)!]!)
    m.word(0x5eed)
    for (const id of this.net.nodeIds) if (this.net.isCrashed(id)) m.pair(hashText(String(id)))
    m.word(0x5eed)
    for (const id of this.net.nodeIds) if (this.net.isPaused(id)) m.pair(hashText(String(id)))
    return hashHex(m.finish(terminalHash))
  }

  /** Keeps the first `length` chains: each node's last event steps back past the cut. */
  private cutChains(length: number): void {
    for (const [key, last] of this.lastOfNode) {
      let i = last
      while (i >= length) i = this.previousOfNode[i]!
      if (i < 0) this.lastOfNode.delete(key)
      else this.lastOfNode.set(key, i)
    }
    this.chains.length = length
    this.previousOfNode.length = length
  }

  /** Each node's emitted events and who is down: what tells terminal states apart. */
  fingerprint(): string {
    // As `JSON.stringify([[...byNode].sort(), crashed, paused])` writes it, from each event's JSON
    // written once (`eventJson`): many terminal states share most of their past.
    const texts = this.eventJson
    for (let i = texts.length; i < this.events.length; i++)
      texts.push(JSON.stringify(this.events[i]!.event) ?? 'null')
    const byNode = new Map<string, string[]>()
    for (let i = 0; i < this.events.length; i++) {
      const key = String(this.events[i]!.node)
      const list = byNode.get(key)
      if (list === undefined) byNode.set(key, [texts[i]!])
      else list.push(texts[i]!)
    }
    const nodes = [...byNode].sort(([a], [b]) => (a < b ? -1 : 1))
    const written = nodes.map(([key, list]) => `[${JSON.stringify(key)},[${list.join(',')}]]`)
    const crashed = this.net.nodeIds.filter((id) => this.net.isCrashed(id))
    const paused = this.net.nodeIds.filter((id) => this.net.isPaused(id))
    return `[[${written.join(',')}],${JSON.stringify(crashed)},${JSON.stringify(paused)}]`
  }

  private check(): void {
    if (this.violation !== undefined) return
    this.violation = this.scenario.invariant({ net: this.net, events: this.events })
  }
}

const netHash: Hash64 = { hi: 0, lo: 0 }
const stateMixer = new Mixer()
const chainMixer = new Mixer()
const terminalHash: Hash64 = { hi: 0, lo: 0 }
/** The chain before a node's first event. */
const NO_EVENTS: Hash64 = { hi: 0x9e3779b9, lo: 0x7f4a7c15 }

/**
 * A message's text where `happening` keeps it: written once per message there, so not through
 * `messageText`'s cache (a WeakMap entry per message sent is a cost to the collector).
 */
const writeOnce = (msg: unknown): string => canonicalKey(msg, 'message')

/** A choice as last met under its key, and the token that makes it happen. */
interface KnownChoice {
  readonly msg: unknown
  readonly t: number
  readonly kind: Choice['kind']
  readonly owner: NodeId | undefined
  readonly label: string | undefined
  readonly from: NodeId | undefined
  readonly to: NodeId | undefined
  readonly what: string | undefined
  readonly token: Token
}

/** See `Execution.save`. */
export interface ExecutionCheckpoint {
  readonly net: SimCheckpoint
  readonly events: number
  readonly tokens: number
  readonly used: Execution['used']
  /** The scenario's `sideState.save`, when it has one. */
  readonly side?: unknown
}

/** The token, named by what it does when `what` is given (see `Token.label`). */
function labelled(token: Token, what: string | undefined): Token {
  if (what !== undefined) token.label = `${token.how} ${what}`
  return token
}

/** A delivery on a FIFO link by its link and copy alone: the oldest message in flight on it. */
function headOf(choice: Choice): string {
  const copy = choice.key.endsWith('+d') ? ' copy' : ''
  return `${String(choice.from)}>${String(choice.to)}${copy} head`
}

/** A choice as labels and fairness tasks name it: a FIFO delivery by its link's head, else `describe`. */
const nameOf = (choice: Choice, write: (msg: unknown) => string = messageText): string =>
  choice.kind === 'deliver' && choice.fifo === true ? headOf(choice) : describe(choice, write)

/** A choice by what it does: a message by its link, content and copy, a timer by its key and time. */
function describe(choice: Choice, write: (msg: unknown) => string = messageText): string {
  if (choice.kind === 'deliver') {
    const copy = choice.key.endsWith('+d') ? ' copy' : ''
    const msg = write(choice.msg)
    return `${String(choice.from)}>${String(choice.to)}${copy} ${msg}`
  }
  if (choice.kind === 'timer') return `timer ${String(choice.owner)} ${choice.label} @${choice.t}`
  return choice.key // requests and planned actions: named at setup, the same on every path
}

/** An event as text: canonical when plain; JSON's reading otherwise (an optional field left undefined). */
function eventText(event: unknown): string {
  try {
    return canonicalKey(event)
  } catch {
    return JSON.stringify(event) ?? String(event)
  }
}

/** The default history: each node's emitted events, in order (what per-node invariants judge). */
function eventsByNode(events: ReadonlyArray<{ node: NodeId; event: unknown }>): unknown {
  const byNode = new Map<string, unknown[]>()
  for (const { node, event } of events) {
    const key = JSON.stringify(node)
    let list = byNode.get(key)
    if (list === undefined) {
      list = []
      byNode.set(key, list)
    }
    list.push(eventText(event))
  }
  return [...byNode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}
