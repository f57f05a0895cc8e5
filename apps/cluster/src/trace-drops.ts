/**
 * Which messages of a real run the network dropped, estimated afterwards from the faults, as the
 * simulator judges them: when the message is sent. The UDP link retransmits, so a message whose
 * first transmission met an nft drop rule arrives late (a retransmission got through) or never
 * (the link gave up, the receiver was killed). A message sent while its link was cut is given a
 * `drop` with the reason, and its delivery, if it came, becomes a separate transmission: a `send`
 * with a fresh id and `resendOf` the original, at an estimated time, and its `deliver`.
 *
 * The link from -> to is cut when, at the send:
 * - `partition`: a partition put from and to on different sides (until its `heal`);
 * - `receiver-crashed`: the receiver was dead (from its `crash` to its next `restart`/`start`);
 * - `loss`: the loss fault was on and the message came later than `lossLateMs` (a delay an
 *   untouched message essentially never has: the link's first retransmission timeout) or never.
 *   A loss retransmitted sooner than that stays a slow delivery: an estimate, not a record.
 *
 * A pause of the receiver (or of the sender) is no drop: the kernel keeps the datagrams and the
 * process handles them at SIGCONT, so a message late across a pause stays a late delivery.
 * The resend's time is the delivery's minus the median one-way latency of the run's on-time
 * messages, never before the end of the cut when it is known (the heal, the receiver's restart),
 * never after the delivery.
 */
import type { NodeId, TraceEvent } from '@sd/transport'

/** One message as the parent recorded it, in trace time (ms). */
export interface RecordedMessage {
  id: number
  from: string
  to: string
  t: number
  msg: unknown
  proto: string | undefined
  /** When it was delivered, in the order reported (the link delivers once; kept whatever). */
  deliveries: number[]
}

export type CutReason = 'partition' | 'receiver-crashed' | 'loss'

/** What cut a link at one moment, and until when (undefined: not known, or not over). */
interface Cut {
  reason: CutReason
  until: number | undefined
}

/** The faults of the run, read as who could reach whom when. */
export class FaultTimeline {
  private readonly faults: TraceEvent[]

  constructor(events: readonly TraceEvent[]) {
    this.faults = events
      .filter((e) =>
        ['partition', 'heal', 'crash', 'restart', 'start', 'pause', 'resume', 'loss'].includes(
          e.type,
        ),
      )
      .sort((a, b) => a.t - b.t)
  }

  /** The fault that cut the link from -> to at `t` for certain (loss is judged by the caller). */
  cutAt(from: string, to: string, t: number): Cut | undefined {
    let groups: NodeId[][] | undefined
    let partitionIndex = -1
    let dead = false
    let deadIndex = -1
    for (let i = 0; i < this.faults.length; i++) {
      const f = this.faults[i]!
      if (f.t > t) break
      if (f.type === 'partition') {
        groups = f.groups
        partitionIndex = i
      } else if (f.type === 'heal') groups = undefined
      else if (f.type === 'crash' && f.node === to) {
        dead = true
        deadIndex = i
      } else if ((f.type === 'restart' || f.type === 'start') && f.node === to) dead = false
    }
    if (groups !== undefined && sideOf(groups, from) !== sideOf(groups, to)) {
      return { reason: 'partition', until: this.next(partitionIndex, (f) => f.type === 'heal') }
    }
    if (dead) {
      return {
        reason: 'receiver-crashed',
        until: this.next(
          deadIndex,
          (f) => (f.type === 'restart' || f.type === 'start') && f.node === to,
        ),
      }
    }
    return undefined
  }

  /** Whether the loss fault was on at `t`. */
  lossAt(t: number): boolean {
    let on = false
    for (const f of this.faults) {
      if (f.t > t) break
      if (f.type === 'loss') on = f.percent > 0
    }
    return on
  }

  /** Whether `node` was paused at some moment of [from, to]. */
  pausedWithin(node: string, from: number, to: number): boolean {
    let paused = false
    for (const f of this.faults) {
      if (f.t > to) break
      if (f.type === 'pause' && f.node === node) {
        paused = true
      } else if ((f.type === 'resume' || f.type === 'crash') && f.node === node) {
        if (paused && f.t >= from) return true
        paused = false
      }
    }
    return paused
  }

  private next(after: number, match: (f: TraceEvent) => boolean): number | undefined {
    for (let i = after + 1; i < this.faults.length; i++)
      if (match(this.faults[i]!)) return this.faults[i]!.t
    return undefined
  }
}

/** As in the simulator, nodes a partition does not list form one more side together. */
function sideOf(groups: readonly NodeId[][], node: string): number {
  return groups.findIndex((g) => g.includes(node))
}

export interface DropRules {
  /** During loss, a delivery later than this after its send counts as a lost first transmission. */
  lossLateMs: number
}

/** The judgment of one message: dropped (and why, and until when the cut lasted) or not. */
export function judge(
  m: RecordedMessage,
  faults: FaultTimeline,
  rules: DropRules,
  endT: number,
): Cut | undefined {
  const cut = faults.cutAt(m.from, m.to, m.t)
  if (cut !== undefined) return cut
  if (!faults.lossAt(m.t)) return undefined
  const first = m.deliveries.length > 0 ? Math.min(...m.deliveries) : undefined
  if (first === undefined) {
    // Sent at the very end: still in flight when the nodes stopped, not lost.
    return m.t < endT - rules.lossLateMs ? { reason: 'loss', until: undefined } : undefined
  }
  if (first - m.t <= rules.lossLateMs) return undefined
  if (faults.pausedWithin(m.to, m.t, first) || faults.pausedWithin(m.from, m.t, first))
    return undefined
  return { reason: 'loss', until: undefined }
}

/** The median of the numbers (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const round3 = (t: number) => Math.round(t * 1000) / 1000

/**
 * The trace events of the messages: each `send`, then its `deliver`(ies), or its `drop` and, when
 * it was delivered after all, the resend that got through (fresh ids from `nextId` on). `faults`
 * are the run's trace events (faults among them), `endT` the time of the trace's end.
 */
export function messageEvents(
  messages: readonly RecordedMessage[],
  events: readonly TraceEvent[],
  rules: DropRules,
  nextId: number,
  endT: number,
): TraceEvent[] {
  const faults = new FaultTimeline(events)
  const judged = messages.map((m) => ({ m, cut: judge(m, faults, rules, endT) }))
  const latency = median(
    judged.flatMap(({ m, cut }) =>
      cut === undefined && m.deliveries.length > 0 ? [Math.min(...m.deliveries) - m.t] : [],
    ),
  )
  const out: TraceEvent[] = []
  let id = nextId
  for (const { m, cut } of judged) {
    const proto = m.proto === undefined ? {} : { proto: m.proto }
    const { from, to } = m
    out.push({ t: m.t, type: 'send', id: m.id, from, to, msg: m.msg, ...proto })
    if (cut === undefined) {
      for (const d of m.deliveries)
        out.push({ t: d, type: 'deliver', id: m.id, from, to, sentAt: m.t, ...proto })
      continue
    }
    out.push({ t: m.t, type: 'drop', id: m.id, from, to, reason: cut.reason, ...proto })
    if (m.deliveries.length === 0) continue
    const delivered = Math.min(...m.deliveries)
    const resendAt = round3(
      Math.min(delivered, Math.max(delivered - latency, cut.until ?? m.t, m.t)),
    )
    const resend = id++
    out.push({
      t: resendAt,
      type: 'send',
      id: resend,
      from,
      to,
      msg: m.msg,
      ...proto,
      resendOf: m.id,
    })
    for (const d of m.deliveries)
      out.push({ t: d, type: 'deliver', id: resend, from, to, sentAt: resendAt, ...proto })
  }
  return out
}
