/**
 * Histories as call and return events, the form a running system emits them in, and the feed
 * from a simulator run: the events protocols emitted (`TimedEvent`s), turned into operations.
 */
import { InvalidArgumentError } from '../errors.js'
import type { TimedEvent } from '../sim/trace.js'
import type { Operation } from './types.js'

export type OperationId = string | number

/**
 * `invoke` begins operation `id`, `complete` ends it with its output; an operation that is never
 * completed is pending. `info` says so explicitly (Jepsen's indeterminate outcome) and is
 * otherwise the same as no completion.
 */
export type HistoryEvent<I, O> =
  | { type: 'invoke'; id: OperationId; client: string | number; input: I; t: number }
  | { type: 'complete'; id: OperationId; output: O; t: number }
  | { type: 'info'; id: OperationId; t: number }

/** Pairs invocations with completions by `id`; operations come out in invocation order. */
export function historyFromEvents<I, O>(events: Iterable<HistoryEvent<I, O>>): Operation<I, O>[] {
  const open = new Map<OperationId, Operation<I, O>>()
  const operations: Operation<I, O>[] = []
  for (const e of events) {
    if (e.type === 'invoke') {
      if (open.has(e.id))
        throw new InvalidArgumentError(`history: operation ${String(e.id)} is invoked twice`)
      const o: Operation<I, O> = { id: e.id, client: e.client, input: e.input, invokedAt: e.t }
      open.set(e.id, o)
      operations.push(o)
      continue
    }
    const o = open.get(e.id)
    if (o === undefined)
      throw new InvalidArgumentError(`history: operation ${String(e.id)} ends before it begins`)
    if (o.completedAt !== undefined)
      throw new InvalidArgumentError(`history: operation ${String(e.id)} completes twice`)
    if (e.type === 'complete') {
      o.completedAt = e.t
      o.output = e.output
    }
  }
  return operations
}

/** The events of a history, in time order (calls before returns at the same instant). */
export function historyToEvents<I, O>(
  operations: readonly Operation<I, O>[],
): HistoryEvent<I, O>[] {
  const events: HistoryEvent<I, O>[] = []
  operations.forEach((o, i) => {
    const id = o.id ?? i
    events.push({ type: 'invoke', id, client: o.client, input: o.input, t: o.invokedAt })
    if (o.completedAt !== undefined)
      events.push({ type: 'complete', id, output: o.output as O, t: o.completedAt })
  })
  const rank = (e: HistoryEvent<I, O>) => (e.type === 'invoke' ? 0 : 1)
  return events.sort((a, b) => a.t - b.t || rank(a) - rank(b))
}

/** What a protocol emits when its events are a history already: `historyFromTrace`'s default. */
export type EmittedHistoryEvent<I, O> =
  | { type: 'invoke'; id: OperationId; input: I; client?: string | number }
  | { type: 'complete'; id: OperationId; output: O }
  | { type: 'info'; id: OperationId }

/** The input of the `invoke` members of an event union, and the output of its `complete` ones. */
export type InputOf<Ev> = Ev extends { type: 'invoke'; input: infer I } ? I : never
export type OutputOf<Ev> = Ev extends { type: 'complete'; output: infer O } ? O : never

/**
 * A history from the events of a simulator run (`runInSim(...).events`, `emitsOf(net.trace)`).
 * Without `map`, events shaped as `EmittedHistoryEvent` are taken (others are skipped), the client
 * being the emitting node unless named, and ids are scoped by node (two nodes may both number
 * their operations from 1). `map` turns any event into a history event, or undefined to skip it.
 */
export function historyFromTrace<Ev>(
  events: readonly TimedEvent<Ev>[],
): Operation<InputOf<Ev>, OutputOf<Ev>>[]
export function historyFromTrace<Ev, I, O>(
  events: readonly TimedEvent<Ev>[],
  map: (e: TimedEvent<Ev>) => HistoryEvent<I, O> | undefined,
): Operation<I, O>[]
export function historyFromTrace(
  events: readonly TimedEvent<unknown>[],
  map: (e: TimedEvent<unknown>) => HistoryEvent<unknown, unknown> | undefined = defaultMapping,
): Operation<unknown, unknown>[] {
  const mapped: HistoryEvent<unknown, unknown>[] = []
  for (const e of events) {
    const h = map(e)
    if (h !== undefined) mapped.push(h)
  }
  return historyFromEvents(mapped)
}

function defaultMapping(e: TimedEvent<unknown>): HistoryEvent<unknown, unknown> | undefined {
  const ev = e.event as Partial<Record<string, unknown>> | null
  if (typeof ev !== 'object' || ev === null) return undefined
  const id = `${e.node}/${String(ev.id)}`
  if (ev.type === 'invoke') {
    const client = (ev.client as string | number | undefined) ?? e.node
    return { type: 'invoke', id, client, input: ev.input, t: e.t }
  }
  if (ev.type === 'complete') return { type: 'complete', id, output: ev.output, t: e.t }
  if (ev.type === 'info') return { type: 'info', id, t: e.t }
  return undefined
}
