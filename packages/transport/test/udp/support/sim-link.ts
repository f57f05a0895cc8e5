/**
 * Runs LinkEngine nodes inside the deterministic simulator: datagrams are simulator messages
 * (so loss, duplication, reordering, delay, partitions and crashes come from SimNetwork), timers
 * are simulator timers and randomness is the node's seeded stream. No socket, no wall clock.
 */
import type { NodeId } from '../../../src/ids.js'
import type { Ctx, Protocol } from '../../../src/protocol.js'
import { SimNetwork, type SimNetworkOptions } from '../../../src/sim/index.js'
import type { TransportSignal } from '../../../src/transport.js'
import { formatAddress } from '../../../src/udp/address.js'
import { Authenticator } from '../../../src/udp/auth.js'
import { LinkEngine } from '../../../src/udp/engine.js'
import { BackpressureError } from '../../../src/udp/errors.js'
import { resolveOptions, type UdpTransportOptions } from '../../../src/udp/options.js'
import type { UdpDropReason } from '../../../src/udp/stats.js'

export type EngineOptions = Omit<UdpTransportOptions<never>, 'id' | 'peers' | 'codec' | 'bind'>

/** What the harness adds: the key, and whom each node's address book starts with (default: all). */
export type HarnessOptions = EngineOptions & {
  key?: string
  knows?: (self: NodeId) => readonly NodeId[]
}

/** What a node hands the harness: messages in the order delivered, signals, drops. */
export interface NodeLog {
  delivered: Array<{ from: NodeId; text: string }>
  signals: TransportSignal[]
  drops: UdpDropReason[]
  /** Every datagram this node put on the wire, in order, with its virtual time (for replay attacks). */
  transmitted: Array<{ to: NodeId; datagram: Buffer; at: number }>
}

/** An application at `self` reacting to a delivery: `reply` sends in the same step, as a handler would. */
export type OnDeliver = (
  self: NodeId,
  from: NodeId,
  text: string,
  reply: (text: string) => void,
  now: number,
) => void

type Request =
  | { type: 'send'; to: NodeId; text: string }
  | { type: 'sendAll'; to: NodeId; texts: string[] }
  | { type: 'inject'; datagram: Buffer; source?: NodeId }

/** A simulator with one LinkEngine per node, and a log per node that survives restarts. */
export class SimLinks {
  readonly net: SimNetwork
  readonly logs = new Map<NodeId, NodeLog>()
  private readonly engines = new Map<NodeId, LinkEngine>()
  /** Messages the application still wants to send, per node, in order (backpressure retries). */
  private readonly backlog = new Map<NodeId, Array<{ to: NodeId; text: string }>>()
  /** Called on every delivery (request/response traffic); none by default. */
  onDeliver: OnDeliver | undefined

  constructor(
    readonly ids: NodeId[],
    options: HarnessOptions = {},
    simOptions: SimNetworkOptions = {},
  ) {
    this.net = new SimNetwork({ trace: false, ...simOptions })
    const resolved = resolveOptions({ id: 'sim', ...options })
    for (const id of ids) {
      this.logs.set(id, { delivered: [], signals: [], drops: [], transmitted: [] })
      this.backlog.set(id, [])
    }
    this.net.launch<Buffer, Request>(ids, (self) => this.protocol(self, resolved, options))
  }

  engine(id: NodeId): LinkEngine {
    return this.engines.get(id)!
  }

  log(id: NodeId): NodeLog {
    return this.logs.get(id)!
  }

  /** The application at `from` sends `text` to `to` at virtual time `at` (default now). */
  send(from: NodeId, to: NodeId, text: string, at?: number): void {
    this.net.request<Request>(from, { type: 'send', to, text }, at)
  }

  /**
   * A datagram arrives at `to` from nowhere in particular (an attacker), at `at`; or, with
   * `source`, from that node's address (what admission would learn).
   */
  inject(to: NodeId, datagram: Buffer, at?: number, source?: NodeId): void {
    const req: Request = { type: 'inject', datagram }
    if (source !== undefined) req.source = source
    this.net.request<Request>(to, req, at)
  }

  /** The application at `from` sends all of `texts` to `to` in one step (one turn), at `at`. */
  sendAll(from: NodeId, to: NodeId, texts: string[], at?: number): void {
    this.net.request<Request>(from, { type: 'sendAll', to, texts }, at)
  }

  texts(at: NodeId, from: NodeId): string[] {
    return this.log(at)
      .delivered.filter((d) => d.from === from)
      .map((d) => d.text)
  }

  private protocol(
    self: NodeId,
    options: ReturnType<typeof resolveOptions>,
    { key, knows, admit }: HarnessOptions,
  ): Protocol<Buffer, Request> {
    const log = this.log(self)
    const backlog = this.backlog.get(self)!
    let ctx!: Ctx<Buffer>
    let engine!: LinkEngine
    const pushBacklog = () => {
      while (backlog.length > 0) {
        const next = backlog[0]!
        try {
          engine.send(next.to, Buffer.from(next.text), ctx.now())
        } catch (error) {
          if (!(error instanceof BackpressureError)) throw error
          ctx.setTimer('backlog', 1)
          return
        }
        backlog.shift()
      }
    }
    return {
      start: (c) => {
        ctx = c
        engine = new LinkEngine(
          self,
          options,
          key === undefined ? undefined : new Authenticator(key),
          {
            transmit: (address, datagram) => {
              const to = address.host === 'n' ? address.port : address.host
              log.transmitted.push({ to, datagram, at: ctx.now() })
              ctx.send(to, datagram)
            },
            deliver: (from, payload) => {
              const text = Buffer.from(payload).toString('utf8')
              log.delivered.push({ from, text })
              this.onDeliver?.(
                self,
                from,
                text,
                (answer) => engine.send(from, Buffer.from(answer), ctx.now()),
                ctx.now(),
              )
              return true
            },
            signal: (signal) => log.signals.push(signal),
            dropped: (reason) => log.drops.push(reason),
            wake: (at) => ctx.setTimer('wake', Math.max(0, at - ctx.now())),
            flushSoon: () => ctx.setTimer('flush', 0),
            // The datagram's source is the simulated sender (see onMessage), addressed by id.
            ...(admit === undefined
              ? {}
              : {
                  admit: (id, source) => {
                    if (source === undefined) return undefined // from nowhere: no address to learn
                    const address = addressOf(source as NodeId)
                    return admit(id, formatAddress(address)) ? address : undefined
                  },
                }),
          },
          {
            u32: () => 1 + Math.floor(ctx.random() * 0xffff_fffe),
            unit: () => ctx.random(),
          },
        )
        this.engines.set(self, engine)
        for (const peer of knows?.(self) ?? c.peers) engine.setPeer(peer, addressOf(peer))
      },
      onMessage: (from, datagram) => {
        engine.receive(datagram, ctx.now(), from)
      },
      onTimer: (key) => {
        if (key === 'wake') engine.onTimer(ctx.now())
        else if (key === 'flush') engine.flush(ctx.now())
        else if (key === 'backlog') pushBacklog()
      },
      onRequest: (req) => {
        if (req.type === 'inject') return engine.receive(req.datagram, ctx.now(), req.source)
        const idle = backlog.length === 0
        if (req.type === 'send') backlog.push({ to: req.to, text: req.text })
        else for (const text of req.texts) backlog.push({ to: req.to, text })
        if (idle) pushBacklog()
      },
    }
  }
}

/** Simulated nodes are addressed by id: strings in `host`, numbers in `port`. */
export function addressOf(id: NodeId): { host: string; port: number } {
  return typeof id === 'number' ? { host: 'n', port: id } : { host: id, port: 1 }
}
