/**
 * Judges a run of a synchronizer across all its nodes: every correction's target is within its
 * reported error bound of the reference clock at that instant (safety), and the nodes that were
 * to synchronize reported an outcome (liveness).
 */
import type { NodeId, TimedEvent } from '@sd/transport'

/**
 * One emitted event (the shape of `emitsOf(trace)` in `@sd/transport`); `TimedEvent<CristianEvent>`
 * when the protocol is known. The checker takes events of any protocol and reads only `adjusted`
 * and `sync-failed`.
 */
export type { TimedEvent }

export interface ClockSyncCheckOptions {
  /**
   * The reference clock's reading at trace time `t`, for the reference an `adjusted` event names
   * in `source` (undefined when it names none). In the simulator: the server's clock, e.g.
   * `(_, t) => t` when the server keeps true time, or `net.clockOf(server)` read as the run goes.
   */
  referenceAt: (source: NodeId | undefined, t: number) => number
  /** Allowance for float rounding of sums of readings and offsets (ms). Default 1e-9. */
  epsilonMs?: number
  /** Nodes that must report `adjusted` or `sync-failed` at least once by the end of the trace. */
  expectOutcome?: readonly NodeId[]
  /** With `expectOutcome`: each of those nodes reports exactly this many outcomes (one per round). */
  rounds?: number
}

export type ClockSyncViolation =
  /** A correction whose target (readingMs + offsetMs) was farther from the reference than its bound. */
  | {
      kind: 'outside-bound'
      node: NodeId
      t: number
      source: NodeId | undefined
      targetMs: number
      referenceMs: number
      /** targetMs - referenceMs. */
      errorMs: number
      errorBoundMs: number
    }
  /** An `adjusted` event without finite readingMs, offsetMs and a non-negative errorBoundMs. */
  | { kind: 'malformed-adjusted'; node: NodeId; t: number }
  /** A node of `expectOutcome` that reported neither `adjusted` nor `sync-failed`. */
  | { kind: 'no-outcome'; node: NodeId }
  /** A node of `expectOutcome` whose number of outcomes is not `rounds`. */
  | { kind: 'outcome-count'; node: NodeId; expected: number; got: number }

export interface ClockSyncVerdict {
  ok: boolean
  /** Every broken rule, in trace order, then the liveness ones; empty when `ok`. */
  violations: ClockSyncViolation[]
  /** How many `adjusted` events were judged. */
  adjustments: number
}

type Ev = {
  type?: unknown
  readingMs?: unknown
  offsetMs?: unknown
  errorBoundMs?: unknown
  source?: unknown
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isNodeId = (v: unknown): v is NodeId => typeof v === 'number' || typeof v === 'string'

/**
 * Checks clock synchronization from a run's events across all nodes (times in one time base:
 * virtual time, or machine time for real processes). Safety: every `adjusted` event's target
 * (`readingMs + offsetMs`) is within `errorBoundMs` (+ `epsilonMs`) of `referenceAt(source, t)`.
 * Liveness: every node of `expectOutcome` reported `adjusted` or `sync-failed` (exactly `rounds`
 * times, when given). Only meaningful on a trace that ran to its end.
 */
export function checkClockSync(
  events: readonly TimedEvent[],
  options: ClockSyncCheckOptions,
): ClockSyncVerdict {
  const epsilonMs = options.epsilonMs ?? 1e-9
  const violations: ClockSyncViolation[] = []
  const outcomes = new Map<NodeId, number>()
  let adjustments = 0
  for (const { node, t, event } of events) {
    if (event === null || typeof event !== 'object') continue
    const ev: Ev = event
    if (ev.type === 'sync-failed') {
      outcomes.set(node, (outcomes.get(node) ?? 0) + 1)
      continue
    }
    if (ev.type !== 'adjusted') continue
    outcomes.set(node, (outcomes.get(node) ?? 0) + 1)
    adjustments++
    const { readingMs, offsetMs, errorBoundMs } = ev
    if (!finite(readingMs) || !finite(offsetMs) || !finite(errorBoundMs) || errorBoundMs < 0) {
      violations.push({ kind: 'malformed-adjusted', node, t })
      continue
    }
    const source = isNodeId(ev.source) ? ev.source : undefined
    const targetMs = readingMs + offsetMs
    const referenceMs = options.referenceAt(source, t)
    const errorMs = targetMs - referenceMs
    if (!(Math.abs(errorMs) <= errorBoundMs + epsilonMs))
      violations.push({
        kind: 'outside-bound',
        node,
        t,
        source,
        targetMs,
        referenceMs,
        errorMs,
        errorBoundMs,
      })
  }
  for (const node of options.expectOutcome ?? []) {
    const got = outcomes.get(node) ?? 0
    if (options.rounds !== undefined && got !== options.rounds)
      violations.push({ kind: 'outcome-count', node, expected: options.rounds, got })
    else if (got === 0) violations.push({ kind: 'no-outcome', node })
  }
  return { ok: violations.length === 0, violations, adjustments }
}
