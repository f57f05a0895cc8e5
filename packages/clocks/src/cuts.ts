import type { VectorView } from './compare.js'
import { InvalidClockArgumentError } from './errors.js'
import { type DenseLike, DenseVectorClock } from './vector-dense.js'

/** The last event of one process in a cut: its process key and its vector timestamp. */
export interface FrontierEvent<K> {
  readonly process: K
  readonly clock: VectorView<K>
}

/**
 * The texts' pairwise test: e_i (of p_i) and e_j (of p_j), i != j, cannot both be on the frontier
 * of one consistent cut iff V_i[i] < V_j[i] or V_j[j] < V_i[j], i.e. one of them has seen an
 * event of the other's process that comes after the other (a receive without its send).
 */
export function cannotShareFrontier<K>(a: FrontierEvent<K>, b: FrontierEvent<K>): boolean {
  if (a.process === b.process) {
    throw new InvalidClockArgumentError(
      `cannotShareFrontier: both events belong to process ${JSON.stringify(a.process)}; a frontier has one event per process`,
    )
  }
  return (
    a.clock.get(a.process) < b.clock.get(a.process) ||
    b.clock.get(b.process) < a.clock.get(b.process)
  )
}

/** Why a frontier is not the frontier of a consistent cut. */
export type CutViolation<K> =
  /** `a` and `b` fail the pairwise test: one has seen past the other. */
  | { kind: 'pair'; a: K; b: K }
  /** `process` has no event in the cut, yet `seenBy` depends on one of its events. */
  | { kind: 'missing'; process: K; seenBy: K }

/**
 * The first reason the frontier is inconsistent, or undefined for a consistent cut. A process
 * absent from the frontier has no event in the cut. O(m^2) for m frontier events (the texts'
 * pairwise test) plus O(entries) for absent processes.
 */
export function findCutViolation<K>(
  frontier: readonly FrontierEvent<K>[],
): CutViolation<K> | undefined {
  const present = new Set<K>()
  for (const e of frontier) {
    if (present.has(e.process)) {
      throw new InvalidClockArgumentError(
        `cut frontier lists process ${JSON.stringify(e.process)} twice; give one event (the last in the cut) per process`,
      )
    }
    present.add(e.process)
  }
  for (let i = 0; i < frontier.length; i++) {
    for (let j = i + 1; j < frontier.length; j++) {
      const a = frontier[i]!
      const b = frontier[j]!
      if (cannotShareFrontier(a, b)) return { kind: 'pair', a: a.process, b: b.process }
    }
  }
  for (const e of frontier) {
    for (const k of e.clock.keys()) {
      if (!present.has(k) && e.clock.get(k) > 0) {
        return { kind: 'missing', process: k, seenBy: e.process }
      }
    }
  }
  return undefined
}

/** A cut is consistent iff it is left-closed under happens-before; tested on its frontier. */
export function isConsistentCut<K>(frontier: readonly FrontierEvent<K>[]): boolean {
  return findCutViolation(frontier) === undefined
}

/**
 * The dense form: `frontier[i]` is the timestamp of p_i's last event in the cut, or undefined
 * when the cut holds no event of p_i.
 */
export function isConsistentDenseCut(frontier: readonly (DenseLike | undefined)[]): boolean {
  const events: FrontierEvent<number>[] = []
  frontier.forEach((clock, i) => {
    if (clock !== undefined) {
      const view = clock instanceof DenseVectorClock ? clock : DenseVectorClock.from(clock, i)
      if (view.size !== frontier.length) {
        throw new InvalidClockArgumentError(
          `isConsistentDenseCut: frontier has ${frontier.length} processes but clock ${i} has ${view.size} entries`,
        )
      }
      events.push({ process: i, clock: view })
    }
  })
  return isConsistentCut(events)
}
