/**
 * `@sd/transport/explore`: systematic exploration of a protocol's schedules in the simulator.
 * See the package README, "Exploring every ordering".
 */
import { InvalidArgumentError } from '../errors.js'
import { exploreExhaustive } from './dfs.js'
import { exploreDpor } from './dpor.js'
import { explorePct, type PctOptions, type PctResult } from './pct.js'
import { exploreStateful } from './stateful.js'
import type { ExploreOptions, ExploreResult, ExploreScenario } from './types.js'

export type { AbstractionContext, KeyAbstraction, Rename } from '../sim/key-abstraction.js'
export { NO_RENAME } from '../sim/key-abstraction.js'
export {
  atOrBefore,
  type Clock,
  type Stamped,
  type WithClock,
  withVectorClocks,
} from './causality.js'
export { type Replay, replay } from './replay.js'
export type { SymmetryInfo } from './symmetry.js'
export type {
  AmpleInfo,
  Communication,
  Counterexample,
  ExploreOptions,
  ExploreResult,
  ExploreScenario,
  ExploreState,
  Lasso,
  LivenessGoal,
  LivenessResult,
  LivenessVerdict,
  Reads,
  SideState,
} from './types.js'
export type { PctOptions, PctResult }

/**
 * Every schedule within the bounds, depth first, with the reduction unless turned off: stateful
 * (each state expanded once) when every node's protocol has `snapshot()`, stateless otherwise or
 * with `stateful: false`. `result.mode` says which ran.
 */
export function explore<Ev>(
  scenario: ExploreScenario<Ev>,
  options: ExploreOptions = {},
): ExploreResult {
  checkFaultSettings(options)
  const stateful =
    options.stateful === false ? undefined : exploreStateful(scenario as ExploreScenario, options)
  if (stateful === undefined && scenario.liveness !== undefined)
    throw new InvalidArgumentError(
      'explore: liveness needs the stateful search: every protocol with snapshot(), and stateful not false',
    )
  if (stateful !== undefined) return stateful
  const reduction = options.reduction ?? true
  return reduction === true || reduction === 'dpor'
    ? exploreDpor(scenario as ExploreScenario, options)
    : exploreExhaustive(scenario as ExploreScenario, options)
}

/** PCT runs, for spaces too large to exhaust. */
export function explorePctRuns<Ev>(
  scenario: ExploreScenario<Ev>,
  pct: PctOptions,
  options: ExploreOptions = {},
): PctResult {
  checkFaultSettings(options)
  return explorePct(scenario, pct, options)
}

function checkFaultSettings(options: ExploreOptions): void {
  const { pauseMs, clockStepMs } = options
  if (pauseMs !== undefined && !(Number.isFinite(pauseMs) && pauseMs > 0))
    throw new InvalidArgumentError(`explore: pauseMs must be a finite number > 0, got ${pauseMs}`)
  if (clockStepMs !== undefined && !(Number.isFinite(clockStepMs) && clockStepMs !== 0))
    throw new InvalidArgumentError(
      `explore: clockStepMs must be a finite number other than 0, got ${clockStepMs}`,
    )
}
