import { createSocket, type Socket } from 'node:dgram'
import { createRandom } from '../../../src/random.js'

/** Faults applied by the proxy to every datagram, independently, from a seeded generator. */
export interface ChaosOptions {
  seed: number | string
  /** Probability that a datagram vanishes. */
  loss: number
  /** Probability that a datagram is delivered twice. */
  duplicate: number
  /** Probability that a datagram is held back longer than the others (so later ones overtake it). */
  reorder: number
  /** Base delay range in ms [min, max]. */
  delayMs: [number, number]
  /** Extra delay for reordered datagrams, ms. */
  reorderDelayMs: number
}

export interface ChaosCounts {
  forwarded: number
  lost: number
  duplicated: number
  reordered: number
}

/**
 * A UDP forwarder between two endpoints A and B (no `tc netem` here): A's address book points
 * B at `portForA`, B's points A at `portForB`. Each datagram is lost, duplicated, delayed or
 * held back according to the seeded options, then sent on from the other side's socket.
 */
export class ChaosProxy {
  readonly counts: ChaosCounts = { forwarded: 0, lost: 0, duplicated: 0, reordered: 0 }
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private readonly random: () => number
  private closed = false

  private constructor(
    private readonly facingA: Socket,
    private readonly facingB: Socket,
    private readonly options: ChaosOptions,
    private readonly a: { host: string; port: number },
    private readonly b: { host: string; port: number },
  ) {
    this.random = createRandom(options.seed).next
    facingA.on('message', (msg) => this.forward(msg, facingB, this.b))
    facingB.on('message', (msg) => this.forward(msg, facingA, this.a))
  }

  static async start(
    a: { host: string; port: number },
    b: { host: string; port: number },
    options: ChaosOptions,
  ): Promise<ChaosProxy> {
    const bind = async () => {
      const socket = createSocket('udp4')
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()))
      return socket
    }
    return new ChaosProxy(await bind(), await bind(), options, a, b)
  }

  /** Where A must send to reach B. */
  get portForA(): number {
    return this.facingA.address().port
  }

  /** Where B must send to reach A. */
  get portForB(): number {
    return this.facingB.address().port
  }

  private forward(msg: Buffer, out: Socket, to: { host: string; port: number }): void {
    const { loss, duplicate, reorder, delayMs, reorderDelayMs } = this.options
    if (this.random() < loss) {
      this.counts.lost++
      return
    }
    const copies = this.random() < duplicate ? 2 : 1
    if (copies === 2) this.counts.duplicated++
    for (let i = 0; i < copies; i++) {
      let delay = delayMs[0] + this.random() * (delayMs[1] - delayMs[0])
      if (this.random() < reorder) {
        delay += reorderDelayMs
        this.counts.reordered++
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        if (this.closed) return
        this.counts.forwarded++
        out.send(msg, to.port, to.host)
      }, delay)
      this.timers.add(timer)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    await Promise.all(
      [this.facingA, this.facingB].map(
        (s) => new Promise<void>((resolve) => s.close(() => resolve())),
      ),
    )
  }
}
