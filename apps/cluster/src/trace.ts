/**
 * `--trace FILE`: the real run as an sd-trace document (the format of the simulator's traces, see
 * @sd/transport's `TraceDocument`), so a viewer made for simulated runs can open it. Times are ms
 * since the parent started, on the machine's clock. Each message carries its sender's sequence
 * number, which pairs its `send` with its `deliver` (they arrive on different pipes, in any
 * order). Faults have the simulator's shapes (`crash`, `restart`, `pause`, `resume` with an
 * unknown `backlog` of 0, `partition`, `heal`, `clock-step`), so `faultsOf` reads them; a message
 * sent to a dead node has a `send` and no `deliver` (the link gives up on it silently).
 */
import type { FaultEvent, TraceDocument, TraceEvent } from '@sd/transport'

export class TraceRecorder {
  private readonly events: TraceEvent[] = []
  private readonly sends = new Map<string, { t: number; id: number; proto: string | undefined }>()
  private readonly delivers: Array<{ t: number; from: string; to: string; seq: number }> = []
  private nextId = 1

  constructor(
    private readonly origin: number,
    private readonly seed: number,
  ) {}

  private at(t: number): number {
    return Math.round((t - this.origin) * 1000) / 1000
  }

  boot(t: number, node: string, restart: boolean): void {
    this.events.push(
      restart ? { t: this.at(t), type: 'restart', node } : { t: this.at(t), type: 'start', node },
    )
  }

  crash(t: number, node: string): void {
    this.events.push({ t: this.at(t), type: 'crash', node })
  }

  /** A fault, in the simulator's shape (`t` in machine ms): a kill, a pause, a clock step... */
  fault(f: FaultEvent): void {
    this.events.push({ ...f, t: this.at(f.t) })
  }

  emit(t: number, node: string, proto: string, event: unknown): void {
    this.events.push({ t: this.at(t), type: 'emit', node, event: { proto, event }, proto })
  }

  send(t: number, from: string, to: string, seq: number, msg: unknown): void {
    const id = this.nextId++
    const tag = (msg as { proto?: unknown })?.proto
    const proto = typeof tag === 'string' ? tag : undefined
    this.sends.set(`${from} ${seq}`, { t, id, proto })
    this.events.push({
      t: this.at(t),
      type: 'send',
      id,
      from,
      to,
      msg,
      ...(proto === undefined ? {} : { proto }),
    })
  }

  deliver(t: number, from: string, to: string, seq: number): void {
    this.delivers.push({ t, from, to, seq })
  }

  partition(t: number, groups: string[][]): void {
    this.events.push({ t: this.at(t), type: 'partition', groups })
  }

  heal(t: number): void {
    this.events.push({ t: this.at(t), type: 'heal' })
  }

  document(nodes: string[]): TraceDocument {
    const events = [...this.events]
    for (const d of this.delivers) {
      const sent = this.sends.get(`${d.from} ${d.seq}`)
      if (sent === undefined) continue
      events.push({
        t: this.at(d.t),
        type: 'deliver',
        id: sent.id,
        from: d.from,
        to: d.to,
        sentAt: this.at(sent.t),
        ...(sent.proto === undefined ? {} : { proto: sent.proto }),
      })
    }
    events.sort((a, b) => a.t - b.t)
    return { format: 'sd-trace', version: 1, seed: this.seed, nodes, events }
  }
}
