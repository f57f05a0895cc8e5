/**
 * The packages' invariants, judged after every step of a run-mode scenario from what the trace
 * holds so far: mutual exclusion and fencing tokens (`@sd/mutex`'s checker), one leader per term
 * and terms that never go back (`@sd/election`'s), no phantom deadlock and none left at the end
 * (`@sd/deadlock`'s), no rumour delivered twice (flooding), Cristian's corrections within their
 * error bound; for the clocks and the other timesync scenarios, `clock-invariants.ts`. Check-mode
 * runs use their spec's own invariant instead.
 */
import { checkDeadlocks, type TimedDeadlockEvent } from '@sd/deadlock'
import { checkElection, type ElectionViolation } from '@sd/election'
import { checkMutualExclusion } from '@sd/mutex'
import {
  type FaultEvent,
  isRecord,
  type NodeId,
  type TimedEvent,
  type TraceEvent,
} from '@sd/transport'
import { clockJudgeFor } from './clock-invariants.js'

export interface JudgeInput {
  events: readonly TimedEvent[]
  faults: readonly FaultEvent[]
  /** Nothing is left to happen: what only holds at the end (no deadlock left) is judged. */
  atEnd: boolean | (() => boolean)
  /** The trace so far (the clocks scenarios' stamps ride on their messages). */
  trace?: readonly TraceEvent[]
  /** The nodes, in the order of the scenario's vectors. */
  ids?: readonly NodeId[]
}

export type Judge = (input: JudgeInput) => string | undefined

/** The invariant named for a scenario, and its judge; none for scenarios without one here. */
export function judgeFor(scenario: string): { name: string; judge: Judge } | undefined {
  if (scenario.startsWith('mutex-'))
    return {
      name: 'mutual exclusion, fencing tokens',
      judge: ({ events, faults }) => checkMutualExclusion(events, faults).violations[0],
    }
  if (scenario.startsWith('election-'))
    return {
      name: 'one leader per term, terms never go back',
      // The per-term rules only, as the scenarios judge them: these elections hold no lease, so a
      // deposed leader learns of its successor a message later ("never two at once" is not theirs).
      judge: ({ events }) => {
        const v = checkElection(events).violations[0]
        return v === undefined ? undefined : electionText(v)
      },
    }
  if (scenario.startsWith('deadlock-'))
    return {
      name: 'no phantom deadlock, none left at the end',
      judge: ({ events, atEnd }) => {
        const verdict = checkDeadlocks(events.filter(isDeadlockEvent))
        const phantom = verdict.phantoms[0]
        if (phantom)
          return `a deadlock was reported for a cycle that never existed: ${phantom.cycle.join('→')}`
        const ended = typeof atEnd === 'function' ? atEnd() : atEnd
        if (ended && verdict.unresolved)
          return `a deadlock is left at the end: ${verdict.unresolved.join('→')}`
        return undefined
      },
    }
  if (scenario === 'cristian')
    return {
      name: "every correction within its error bound of the server's clock",
      judge: ({ events }) => cristianBound(events),
    }
  if (scenario === 'flood')
    return { name: 'no rumour delivered twice', judge: ({ events }) => deliveredTwice(events) }
  const clocks = clockJudgeFor(scenario, cristianBound)
  if (clocks)
    return {
      name: clocks.name,
      judge: ({ events, trace, ids }) =>
        clocks.judge({ events, trace: trace ?? [], ids: ids ?? [] }),
    }
  return undefined
}

function electionText(v: ElectionViolation): string {
  switch (v.kind) {
    case 'two-leaders-in-term':
      return `two leaders in term ${v.term}: ${v.leaders.join(' and ')}`
    case 'term-went-back':
      return `node ${String(v.node)}'s term went back from ${v.from} to ${v.to}`
    case 'two-leaders-at-once':
      return `${String(v.leaders[0])} and ${String(v.leaders[1])} led at once (terms ${v.terms.join(', ')})`
    case 'leader-in-minority':
      return `node ${String(v.node)} led term ${v.term} without a majority`
  }
}

/** The checker reads the types it knows and passes over the others. */
function isDeadlockEvent(e: TimedEvent): e is TimedDeadlockEvent {
  return isRecord(e.event) && typeof e.event.type === 'string'
}

function deliveredTwice(events: readonly TimedEvent[]): string | undefined {
  const seen = new Set<string>()
  for (const { node, event } of events) {
    if (!isRecord(event) || typeof event.delivered !== 'number') continue
    const key = `${String(node)}/${event.delivered}`
    if (seen.has(key)) return `node ${String(node)} delivered rumour ${event.delivered} twice`
    seen.add(key)
  }
  return undefined
}

/** As the cristian scenario judges a correction (its EPSILON too): beyond it, float noise. */
const EPSILON = 1e-6

/**
 * Cristian's clock bound: what a client set its clock to (the reading plus the offset applied)
 * is within the bound it reported of the server's clock at that instant. The scenario's server
 * (node 1) keeps true time, which the trace's time is.
 */
function cristianBound(events: readonly TimedEvent[]): string | undefined {
  for (const { node, t, event } of events) {
    if (!isRecord(event) || event.type !== 'adjusted') continue
    const { readingMs, offsetMs, errorBoundMs } = event
    if (typeof readingMs !== 'number' || typeof offsetMs !== 'number') continue
    if (typeof errorBoundMs !== 'number') continue
    const off = readingMs + offsetMs - t
    if (Math.abs(off) > errorBoundMs + EPSILON)
      return `node ${String(node)} at t=${t.toFixed(3)} ms set its clock ${off.toFixed(3)} ms off the server's, beyond its bound ±${errorBoundMs.toFixed(3)} ms`
  }
  return undefined
}
