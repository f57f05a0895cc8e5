import type { Random } from '../random.js'
import { Delivery, FullDelivery } from './delivery.js'
import type { EventQueue } from './event-queue.js'
import type { Route } from './link-name.js'
import type { LinkTable } from './link-table.js'
import type { LinkState } from './links.js'
import type { DeliverEvent, SimEvent, SimNode } from './sim-node.js'
import type { SimStats } from './stats.js'
import { type DropReason, messageType } from './trace.js'
import { type TraceRecorder, withProto } from './trace-recorder.js'

/** What the wire shares with the network that owns it. */
export interface WireContext {
  readonly queue: EventQueue<SimEvent>
  readonly links: LinkTable
  /** The network's random source: loss, duplication and latency draw from it. */
  readonly random: Random
  readonly counters: SimStats
  readonly recorder: TraceRecorder
  /** Virtual time now. */
  readonly now: () => number
  /** 'json' round-trips each message (see `SimNetworkOptions.copyMessages`). */
  readonly copyMessages: 'none' | 'json' | undefined
}

/**
 * The messages between simulated nodes: a send is judged (crashed sender, partition, loss,
 * duplication) and scheduled after its link's latency; an arrival is delivered or dropped.
 */
export class SimWire {
  /** Whether the nodes' groups are in force (see `SimNetwork.partition`). */
  partitioned = false
  /** An explorer drives the network: messages keep their key and hash once made (`FullDelivery`). */
  explored = false
  private nextMessageId = 0
  private readonly copy: ((msg: unknown) => unknown) | undefined

  constructor(private readonly ctx: WireContext) {
    this.copy = ctx.copyMessages === 'json' ? (m) => JSON.parse(JSON.stringify(m)) : undefined
  }

  /** What a checkpoint keeps of the wire (the links and the random stream are kept apart). */
  save(): { partitioned: boolean; messageIds: number } {
    return { partitioned: this.partitioned, messageIds: this.nextMessageId }
  }

  load(saved: { partitioned: boolean; messageIds: number }): void {
    this.partitioned = saved.partitioned
    this.nextMessageId = saved.messageIds
  }

  /** Sends `msg` on `route`. */
  send(route: Route, msg: unknown): void {
    const from = route.from
    const target = route.to
    const to = target.id
    const { counters, recorder } = this.ctx
    const now = this.ctx.now()
    const id = ++this.nextMessageId
    counters.sent++
    const type = messageType(msg)
    counters.byType[type] = (counters.byType[type] ?? 0) + 1
    const payload = this.copy ? this.copy(msg) : msg
    // Only a trace names the composed protocol's child behind a message.
    const proto = recorder.enabled ? from.locator?.message(msg) : undefined
    if (recorder.enabled) {
      recorder.record(
        withProto({ t: now, type: 'send', id, from: from.id, to, msg: payload }, proto),
      )
    }
    if (from.crashed) {
      this.drop(id, from, target, 'sender-crashed', proto)
      return
    }
    if (this.partitioned && from.group !== target.group) {
      this.drop(id, from, target, 'partition', proto)
      return
    }
    const link = this.ctx.links.stateOn(route)
    const config = link.config
    const rand = this.ctx.random.next
    if (config.loss > 0 && rand() < config.loss) {
      this.drop(id, from, target, 'loss', proto)
      return
    }
    const number = ++link.sent
    this.schedule(link, route, id, payload, proto, number, 0, now)
    if (config.duplicate > 0 && rand() < config.duplicate) {
      counters.duplicated++
      if (recorder.enabled) {
        recorder.record(withProto({ t: now, type: 'duplicate', id, from: from.id, to }, proto))
      }
      this.schedule(link, route, id, payload, proto, number, 1, now)
    }
  }

  /**
   * A message arrives: true when it is to be handed to the receiver's transport (counted and
   * recorded as delivered), false when it was dropped.
   */
  arrive(event: DeliverEvent): boolean {
    const { to } = event
    if (to.crashed) {
      this.drop(event.id, event.from, to, 'receiver-crashed', event.proto)
      return false
    }
    if (to.transport.closed) {
      this.drop(event.id, event.from, to, 'receiver-closed', event.proto)
      return false
    }
    this.ctx.counters.delivered++
    if (this.ctx.recorder.enabled) {
      this.ctx.recorder.record(
        withProto(
          {
            t: this.ctx.now(),
            type: 'deliver',
            id: event.id,
            from: event.from.id,
            to: to.id,
            sentAt: event.sentAt,
          },
          event.proto,
        ),
      )
    }
    return true
  }

  /** Records a message in flight as duplicated (the caller schedules the copy). */
  recordDuplicate(event: DeliverEvent): void {
    this.ctx.counters.duplicated++
    if (this.ctx.recorder.enabled) {
      this.ctx.recorder.record(
        withProto(
          {
            t: this.ctx.now(),
            type: 'duplicate',
            id: event.id,
            from: event.from.id,
            to: event.to.id,
          },
          event.proto,
        ),
      )
    }
  }

  drop(
    id: number,
    from: SimNode,
    to: SimNode,
    reason: DropReason,
    proto: string | undefined,
  ): void {
    this.ctx.counters.dropped[reason]++
    if (this.ctx.recorder.enabled) {
      this.ctx.recorder.record(
        withProto({ t: this.ctx.now(), type: 'drop', id, from: from.id, to: to.id, reason }, proto),
      )
    }
  }

  private schedule(
    link: LinkState,
    route: Route,
    id: number,
    msg: unknown,
    proto: string | undefined,
    number: number,
    copies: number,
    now: number,
  ): void {
    const config = link.config
    let t = now + config.sample(this.ctx.random.next, route.from.id, route.to.id)
    if (config.fifo) {
      if (t < link.lastArrival) t = link.lastArrival
      link.lastArrival = t
    }
    this.ctx.queue.push(
      this.ctx.recorder.enabled || this.explored
        ? new FullDelivery(t, 0, msg, route, number, copies, { id, sentAt: now, proto })
        : new Delivery(t, 0, msg, route, number, copies),
    )
  }
}
