/** What the binary and the JSON codecs share: the kinds of clock value and how a value to encode is told apart. */
import { InvalidClockArgumentError } from './errors.js'
import type { HlcTimestamp } from './hlc.js'
import { isNodeId } from './ids.js'
import { LamportClock, type LamportTimestamp } from './lamport.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

/** The kinds of clock value the codecs carry. */
export type ClockKind = 'lamport' | 'vector-dense' | 'vector-sparse' | 'hlc'

/** What `encodeClock` / `clockToJSON` accept. */
export type EncodableClock =
  | LamportClock
  | LamportTimestamp
  | DenseVectorClock
  | SparseVectorClock
  | HlcTimestamp

/** A decoded value, tagged with its kind. */
export type DecodedClock =
  | { kind: 'lamport'; value: LamportTimestamp }
  | { kind: 'vector-dense'; value: DenseVectorClock }
  | { kind: 'vector-sparse'; value: SparseVectorClock }
  | { kind: 'hlc'; value: HlcTimestamp }

/** The bare value a decoder returns for kind K. */
export type ValueOf<K extends ClockKind> = Extract<DecodedClock, { kind: K }>['value']

/** A value to encode with its kind, so each branch of an encoder has its type. */
export type TaggedClock =
  | { kind: 'lamport'; value: LamportClock | LamportTimestamp }
  | { kind: 'vector-dense'; value: DenseVectorClock }
  | { kind: 'vector-sparse'; value: SparseVectorClock }
  | { kind: 'hlc'; value: HlcTimestamp }

/** Which kind of clock a value to encode is (refusing anything else). */
export function tagOf(clock: EncodableClock): TaggedClock {
  if (clock instanceof DenseVectorClock) return { kind: 'vector-dense', value: clock }
  if (clock instanceof SparseVectorClock) return { kind: 'vector-sparse', value: clock }
  if (clock instanceof LamportClock) return { kind: 'lamport', value: clock }
  if (clock !== null && typeof clock === 'object') {
    if ('time' in clock && 'pid' in clock) return { kind: 'lamport', value: clock }
    if ('wall' in clock && 'counter' in clock) return { kind: 'hlc', value: clock }
  }
  throw new InvalidClockArgumentError(
    `cannot encode ${String(clock)}: expected a Lamport clock or timestamp, a dense or sparse vector clock, or an HLC timestamp`,
  )
}

/** A Lamport clock or timestamp as the checked timestamp the codecs write. */
export function lamportValue(clock: LamportClock | LamportTimestamp): LamportTimestamp {
  const ts = clock instanceof LamportClock ? clock.timestamp : clock
  if (!Number.isSafeInteger(ts.time) || ts.time < 0 || !isNodeId(ts.pid)) {
    throw new InvalidClockArgumentError(
      `cannot encode Lamport timestamp ${JSON.stringify(ts)}: time must be an integer >= 0 and pid a finite number or a string`,
    )
  }
  return { time: ts.time, pid: ts.pid }
}
