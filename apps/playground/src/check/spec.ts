import type { SimNetwork } from '@sd/transport'
import type { ExploreOptions, ExploreScenario, LivenessGoal } from '@sd/transport/explore'

/** How `sd check <scenario>` explores a scenario: a small configuration and its invariant. */
export interface CheckSpec {
  /** The playground scenario it checks (the name `sd check` takes). */
  scenario: string
  /**
   * What is explored, in one sentence, for the output; a function when it depends on --n (a
   * configuration that names nodes describes only the nodes of that run).
   */
  what: string | ((n: number) => string)
  defaultN: number
  minN: number
  maxN: number
  /**
   * The default run's bounds (the command's flags override them); a function when they depend on
   * --n (a size exhausted at n = 3 may need a schedule bound at n = 4).
   */
  defaults: ExploreOptions | ((n: number) => ExploreOptions)
  build(n: number): ExploreScenario
  /**
   * Goals every fair run must reach (◇goal), checked on the stateful search's state graph (see
   * the transport README, "Liveness"); `sd check` adds them to `build(n)`'s scenario unless
   * --no-liveness or --pct. They turn the sleep-set reduction off, so the bounds must fit the
   * whole graph. `holds` reads the state as the invariant does (the default history keeps each
   * node's events).
   */
  liveness?(n: number): ReadonlyArray<LivenessGoal>
  /**
   * The nodes `build(n)`'s scenario may treat as interchangeable, with the hook renaming ids in
   * the protocol's data, for `--symmetry` (the explorer's symmetry reduction; see the transport
   * README, "Symmetry"). Only where it is sound: no tie-break by id, no randomness, a setup and
   * an invariant that treat the nodes alike.
   */
  symmetry?(n: number): Pick<ExploreScenario, 'symmetric' | 'relabel'>
}

/** `spec.what` for a run of n nodes. */
export function whatAt(spec: CheckSpec, n: number): string {
  return typeof spec.what === 'string' ? spec.what : spec.what(n)
}

/** `spec.defaults` for a run of n nodes. */
export function defaultsAt(spec: CheckSpec, n: number): ExploreOptions {
  return typeof spec.defaults === 'function' ? spec.defaults(n) : spec.defaults
}

/**
 * The end of an explored run: nothing left to do, or with a time bound, no message in flight and
 * no timer due by then (a later timer is past what the spec explores).
 */
export function atEnd(net: SimNetwork, until: number | undefined): boolean {
  return until === undefined
    ? net.choices().length === 0
    : !net.choices().some((c) => c.kind === 'deliver' || c.t <= until)
}
