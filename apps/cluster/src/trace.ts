/**
 * `--trace FILE`: the real run as an sd-trace document (the format of the simulator's traces, see
 * @sd/transport's `TraceDocument`), so a viewer made for simulated runs can open it. Times are ms
 * since the run's origin (t = 0: the parent's clock reading just before it started the nodes), on
 * the machine's clock: the clock of the run's log lines and of the summary's times too. Each
 * message carries its sender's sequence number, which pairs its `send` with its `deliver` (they
 * arrive on different pipes, in any order). Faults have the simulator's shapes (`crash`,
 * `restart`, `pause`, `resume` with an unknown `backlog` of 0, `partition`, `heal`, `loss` with its
 * percent and `percent: 0` at its end, `clock-step`), so `faultsOf` reads them; the workload's
 * start is a `mark`.
 *
 * Drops are estimated afterwards (`trace-drops.ts`), judged at the send as the simulator does: a
 * message sent across a partition, to a dead node, or under the loss fault and delivered later than
 * the link's first retransmission timeout (or never) gets a `drop` with that reason; if a
 * retransmission got it through, that delivery is a `send` with a fresh id and `resendOf` the
 * original, at an estimated time (the delivery's minus the run's median one-way latency, not
 * before the cut ended), and its `deliver`. A message late across a pause is a late delivery.
 */
import type { FaultEvent, TraceDocument, TraceEvent } from '@sd/transport'
import { messageEvents, type RecordedMessage } from './trace-drops.js'
import { LINK_INITIAL_RTO_MS } from './wire.js'

export class TraceRecorder {
  private readonly events: TraceEvent[] = []
  /** By `from seq`, in the order sent. */
  private readonly sends = new Map<string, RecordedMessage>()
  private readonly delivers: Array<{ t: number; from: string; to: string; seq: number }> = []
  private nextId = 1

  constructor(
    private readonly origin: number,
    private readonly seed: number,
    /** During loss, a message delivered later than this after its send was lost once. */
    private readonly lossLateMs = LINK_INITIAL_RTO_MS,
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

  /** The loss fault: `percent` % of the packets dropped from `t` on (machine ms); 0 ends it. */
  loss(t: number, percent: number): void {
    this.events.push({ t: this.at(t), type: 'loss', percent })
  }

  /** A moment named for viewers (`workload starts`). */
  mark(t: number, label: string): void {
    this.events.push({ t: this.at(t), type: 'mark', label })
  }

  emit(t: number, node: string, proto: string, event: unknown): void {
    this.events.push({ t: this.at(t), type: 'emit', node, event: { proto, event }, proto })
  }

  send(t: number, from: string, to: string, seq: number, msg: unknown): void {
    const tag = typeof msg === 'object' && msg !== null && 'proto' in msg ? msg.proto : undefined
    const proto = typeof tag === 'string' ? tag : undefined
    const id = this.nextId++
    this.sends.set(`${from} ${seq}`, { id, from, to, t: this.at(t), msg, proto, deliveries: [] })
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
    const messages = [...this.sends.values()].map((m) => ({ ...m, deliveries: [] as number[] }))
    const byKey = new Map([...this.sends.keys()].map((key, i) => [key, messages[i]!]))
    for (const d of this.delivers) byKey.get(`${d.from} ${d.seq}`)?.deliveries.push(this.at(d.t))
    const endT = Math.max(
      0,
      ...this.events.map((e) => e.t),
      ...messages.flatMap((m) => [m.t, ...m.deliveries]),
    )
    const events = [
      ...this.events,
      ...messageEvents(messages, this.events, { lossLateMs: this.lossLateMs }, this.nextId, endT),
    ]
    events.sort((a, b) => a.t - b.t)
    return { format: 'sd-trace', version: 1, seed: this.seed, nodes, events }
  }
}
