/**
 * Phi accrual over several peers, driven by a protocol: it calls `heard(node, ctx)` when a peer's
 * heartbeat (or anything from it) arrives and passes its timers to `onTimer`; the watch emits
 * `suspect` when a peer's phi reaches the threshold and `alive` when a suspected peer is heard
 * again. One timer per peer, set for the moment phi will cross the threshold: no polling.
 */
import { type Ctx, type NodeId, sortNodeIds } from '@sd/transport'
import {
  PhiAccrual,
  type PhiAccrualSnapshot,
  type PhiOptions,
  type PhiSettings,
  phiSettings,
} from './phi-accrual.js'

export type PhiEvent =
  /**
   * `phi` reached the threshold: `lastHeardMs` is the monotonic reading of the peer's last
   * heartbeat (or of when the watch began, if none came), `silentMs` the silence so far.
   */
  | { type: 'suspect'; node: NodeId; phi: number; lastHeardMs: number; silentMs: number }
  /** A suspected peer was heard again. */
  | { type: 'alive'; node: NodeId }

const PREFIX = 'phi:'
const timerOf = (node: NodeId) => `${PREFIX}${JSON.stringify(node)}`

export interface PhiWatchSnapshot {
  peers: { node: NodeId; suspected: boolean; accrual: PhiAccrualSnapshot }[]
}

export class PhiWatch {
  private readonly peers = new Map<NodeId, { accrual: PhiAccrual; suspected: boolean }>()
  private readonly byTimer = new Map<string, NodeId>()

  constructor(readonly settings: PhiSettings) {}

  /** Starts watching `node` (its silence counts from now). */
  watch<Msg>(node: NodeId, ctx: Ctx<Msg, PhiEvent>): void {
    const peer = { accrual: new PhiAccrual(this.settings), suspected: false }
    this.peers.set(node, peer)
    this.byTimer.set(timerOf(node), node)
    peer.accrual.reset(ctx.monotonic())
    this.arm(node, ctx)
  }

  unwatch<Msg>(node: NodeId, ctx: Ctx<Msg, PhiEvent>): void {
    this.peers.delete(node)
    this.byTimer.delete(timerOf(node))
    ctx.cancelTimer(timerOf(node))
  }

  /** `node` was heard from; watched from now if it was not. */
  heard<Msg>(node: NodeId, ctx: Ctx<Msg, PhiEvent>) {
    const peer = this.peers.get(node)
    if (peer === undefined) return this.watch(node, ctx)
    peer.accrual.heartbeat(ctx.monotonic())
    if (peer.suspected) {
      peer.suspected = false
      ctx.emit({ type: 'alive', node })
    }
    this.arm(node, ctx)
  }

  /** phi of `node` now (0 when it is not watched). */
  phi<Msg>(node: NodeId, ctx: Ctx<Msg, PhiEvent>): number {
    return this.peers.get(node)?.accrual.phi(ctx.monotonic()) ?? 0
  }

  isSuspected(node: NodeId): boolean {
    return this.peers.get(node)?.suspected ?? false
  }

  /** Handles the watch's timers; false when `key` is not one of them. */
  onTimer<Msg>(key: string, ctx: Ctx<Msg, PhiEvent>): boolean {
    const node = this.byTimer.get(key)
    if (node === undefined) return key.startsWith(PREFIX)
    const peer = this.peers.get(node)!
    const now = ctx.monotonic()
    const phi = peer.accrual.phi(now)
    if (peer.accrual.check(this.settings.threshold, now) !== 'suspect') {
      this.arm(node, ctx) // a hair early (phi is just short), or this node was paused (localPauseMs)
      return true
    }
    if (!peer.suspected) {
      peer.suspected = true
      const lastHeardMs = peer.accrual.since ?? now
      ctx.emit({ type: 'suspect', node, phi, lastHeardMs, silentMs: now - lastHeardMs })
    }
    return true
  }

  snapshot(): PhiWatchSnapshot {
    return {
      peers: sortNodeIds(this.peers.keys()).map((node) => {
        const p = this.peers.get(node)!
        return { node, suspected: p.suspected, accrual: p.accrual.snapshot() }
      }),
    }
  }

  private arm<Msg>(node: NodeId, ctx: Ctx<Msg, PhiEvent>): void {
    const peer = this.peers.get(node)!
    const ms = peer.accrual.msUntil(this.settings.threshold, ctx.monotonic())
    ctx.setTimer(timerOf(node), Math.max(1, Math.ceil(ms)))
  }
}

/** A phi accrual watch with validated options (threshold 8, window 200...: see PhiOptions). */
export function phiAccrual(options?: PhiOptions): PhiWatch {
  return new PhiWatch(phiSettings(options))
}
