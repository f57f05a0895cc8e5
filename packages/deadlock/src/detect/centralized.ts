/**
 * Centralized detection: a coordinator collects every site's waits (its lock tables), merges
 * them into one wait-for graph and looks for a cycle. The local graphs are read at different
 * moments, so a cycle in the merge may never have existed at once: a phantom deadlock (A waited
 * for B at site 1 when it was read, then got its lock; B waits for A at site 2, read later).
 *
 * What we do about it: every wait carries an instance id (a new request or a new holder is a new
 * wait). Before declaring a deadlock the coordinator asks the sites whether each wait of the cycle
 * still exists, same instance. If all do, they all existed when the last local graph was read
 * (each existed at its reading and still does, and an instance never comes back), so the cycle
 * was real then, and a deadlock, once real, lasts. Otherwise the cycle is reported as a
 * `phantom` and nobody is aborted. With `confirm: false` the check is skipped, to show phantoms.
 */
import type { SiteEnv } from '../manager/env.js'
import type { ManagerMessage, ProcRef, SiteWait } from '../manager/messages.js'
import { youngest } from '../manager/order.js'
import type { ManagerCtx } from '../manager/protocol.js'
import type { ResourceSide } from '../manager/resources.js'
import { snapshotFields } from '../snapshot.js'

export interface CentralizedOptions {
  /** The site that detects. */
  coordinator: ProcRef['home']
  /** Detect every `periodMs`; without it, only on `{ type: 'detect' }`. */
  periodMs?: number
  /** How long the coordinator waits for the sites' answers (ms). Default 100. */
  replyTimeoutMs?: number
  /** Confirm a cycle's waits before declaring a deadlock (default true). */
  confirm?: boolean
}

type Reply = Extract<ManagerMessage, { type: 'local-waits' | 'confirmed' }>

export class CentralizedDetector {
  private round = 0
  private collecting: Map<ProcRef['home'], SiteWait[]> | undefined
  private confirming: { cycle: SiteWait[]; asked: number; present: Set<string> } | undefined

  /** The detector's state as canonical plain data: replies in arrival order, present waits sorted. */
  snapshot() {
    const copyWait = (w: SiteWait) => ({ ...w, from: { ...w.from }, to: { ...w.to } })
    const collecting = this.collecting
    return {
      round: this.round,
      // In the order the replies came: the merge searches the waits in it, so the cycle found
      // (when there are several) depends on it.
      collecting:
        collecting === undefined
          ? null
          : [...collecting].map(([site, waits]) => ({ site, waits: waits.map(copyWait) })),
      confirming:
        this.confirming === undefined
          ? null
          : {
              cycle: this.confirming.cycle.map(copyWait),
              asked: this.confirming.asked,
              present: [...this.confirming.present].sort(),
            },
    }
  }

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: unknown): void {
    const s = snapshotFields(snapshot, 'resourceManager()', ['round', 'collecting', 'confirming'])
    const copyWait = (w: SiteWait): SiteWait => ({ ...w, from: { ...w.from }, to: { ...w.to } })
    const collecting = s.collecting as Array<{ site: ProcRef['home']; waits: SiteWait[] }> | null
    type Confirming = { cycle: SiteWait[]; asked: number; present: string[] }
    const confirming = s.confirming as Confirming | null
    this.round = s.round as number
    this.collecting =
      collecting === null
        ? undefined
        : new Map(collecting.map(({ site, waits }) => [site, waits.map(copyWait)]))
    this.confirming =
      confirming === null
        ? undefined
        : {
            cycle: confirming.cycle.map(copyWait),
            asked: confirming.asked,
            present: new Set(confirming.present),
          }
  }

  constructor(
    private readonly env: SiteEnv,
    private readonly resources: ResourceSide,
    private readonly options: CentralizedOptions,
  ) {}

  private get isCoordinator(): boolean {
    return this.env.self === this.options.coordinator
  }

  start(ctx: ManagerCtx): void {
    if (this.isCoordinator && this.options.periodMs !== undefined)
      ctx.setTimer('detect', this.options.periodMs)
  }

  onTimer(key: string, ctx: ManagerCtx): boolean {
    if (key === 'detect') this.detect(ctx)
    else if (key === 'detect-timeout') this.settle(ctx)
    else return false
    return true
  }

  /** Starts a round (coordinator only; a round under way is left to finish). */
  detect(ctx: ManagerCtx): void {
    if (!this.isCoordinator || this.collecting !== undefined || this.confirming !== undefined)
      return
    this.round++
    this.collecting = new Map()
    for (const site of this.env.sites(ctx))
      this.env.send(site, { type: 'collect', round: this.round }, ctx)
    ctx.setTimer('detect-timeout', this.options.replyTimeoutMs ?? 100)
  }

  onMessage(from: ProcRef['home'], msg: ManagerMessage, ctx: ManagerCtx): void {
    switch (msg.type) {
      case 'collect':
        this.env.send(
          from,
          {
            type: 'local-waits',
            round: msg.round,
            waits: this.resources.table.waits(),
          },
          ctx,
        )
        return
      case 'confirm': {
        const present = new Set(this.resources.table.waits().map((w) => w.id))
        this.env.send(
          from,
          {
            type: 'confirmed',
            round: msg.round,
            present: msg.ids.filter((id) => present.has(id)),
          },
          ctx,
        )
        return
      }
      case 'local-waits':
      case 'confirmed':
        this.onReply(from, msg, ctx)
        return
    }
  }

  private onReply(from: ProcRef['home'], msg: Reply, ctx: ManagerCtx): void {
    if (msg.round !== this.round) return
    if (msg.type === 'local-waits' && this.collecting !== undefined) {
      this.collecting.set(from, msg.waits)
      if (this.collecting.size === this.env.sites(ctx).length) this.settle(ctx)
    } else if (msg.type === 'confirmed' && this.confirming !== undefined) {
      for (const id of msg.present) this.confirming.present.add(id)
      if (--this.confirming.asked === 0) this.settle(ctx)
    }
  }

  /** All answers in (or the time is up): find a cycle, or judge the one being confirmed. */
  private settle(ctx: ManagerCtx): void {
    ctx.cancelTimer('detect-timeout')
    if (this.confirming !== undefined) {
      const { cycle, present } = this.confirming
      this.confirming = undefined
      if (cycle.every((w) => present.has(w.id))) this.declare(cycle, ctx)
      else ctx.emit({ type: 'phantom', cycle: cycle.map((w) => w.from.id) })
      this.next(ctx)
      return
    }
    const collected = this.collecting
    this.collecting = undefined
    if (collected === undefined) return
    const cycle = findWaitCycle([...collected.values()].flat())
    if (cycle === undefined || this.options.confirm === false) {
      if (cycle !== undefined) this.declare(cycle, ctx)
      this.next(ctx)
      return
    }
    const bySite = new Map<ProcRef['home'], string[]>()
    for (const w of cycle) {
      const site = this.env.siteOf(w.resource)
      bySite.set(site, [...(bySite.get(site) ?? []), w.id])
    }
    this.confirming = { cycle, asked: bySite.size, present: new Set() }
    for (const [site, ids] of bySite)
      this.env.send(site, { type: 'confirm', round: this.round, ids }, ctx)
    ctx.setTimer('detect-timeout', this.options.replyTimeoutMs ?? 100)
  }

  private declare(cycle: SiteWait[], ctx: ManagerCtx): void {
    const victim = youngest(cycle.map((w) => w.from))
    ctx.emit({ type: 'deadlock', cycle: cycle.map((w) => w.from.id), victim: victim.id })
    this.env.send(victim.home, { type: 'abort', process: victim.id }, ctx)
  }

  private next(ctx: ManagerCtx): void {
    if (this.options.periodMs !== undefined) ctx.setTimer('detect', this.options.periodMs)
  }
}

/** One cycle of waits (each wait's holder waits in the next), by an iterative depth-first search. */
export function findWaitCycle(waits: readonly SiteWait[]): SiteWait[] | undefined {
  const out = new Map<string, SiteWait[]>()
  for (const w of waits) {
    const key = String(w.from.id)
    out.set(key, [...(out.get(key) ?? []), w])
  }
  const state = new Map<string, 'open' | 'done'>()
  for (const start of out.keys()) {
    if (state.has(start)) continue
    // The path of waits taken, and for each node on it the index of its next wait to try.
    const path: SiteWait[] = []
    const stack: Array<{ node: string; i: number }> = [{ node: start, i: 0 }]
    state.set(start, 'open')
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const edges = out.get(top.node) ?? []
      if (top.i >= edges.length) {
        state.set(top.node, 'done')
        stack.pop()
        path.pop()
        continue
      }
      const w = edges[top.i++]!
      const to = String(w.to.id)
      if (state.get(to) === 'open') {
        // Back edge: the cycle is the part of the path from `to` on, closed by w.
        const from = path.findIndex((p) => String(p.from.id) === to)
        return [...path.slice(from < 0 ? path.length : from), w]
      }
      if (state.get(to) === 'done') continue
      state.set(to, 'open')
      path.push(w)
      stack.push({ node: to, i: 0 })
    }
  }
  return undefined
}
