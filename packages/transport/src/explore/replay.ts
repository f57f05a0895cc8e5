import type { SimNetwork } from '../sim/network.js'
import { Execution } from './execution.js'
import { parseSchedule, type Token } from './token.js'
import type { ExploreScenario } from './types.js'

export interface Replay {
  net: SimNetwork
  /** The broken invariant, if it broke. */
  violation: string | undefined
  /** Steps of the schedule that no longer applied (an event not pending): skipped. */
  skipped: string[]
}

/** Tokens from their text (owner and kind are only needed while exploring). */
export function tokensOf(schedule: string): Token[] {
  return parseSchedule(schedule).map(({ id, how, key }) => ({
    id,
    how,
    key,
    owner: undefined,
    kind: 'deliver',
  }))
}

/**
 * Re-runs `schedule` exactly: the scenario's setup, each step of the schedule, then the rest in
 * virtual-time order (at most `maxSteps` events), with a full trace for the playground and the
 * visualizer.
 */
export function replay(
  scenario: ExploreScenario,
  schedule: string | readonly Token[],
  options: { maxSteps?: number; trace?: boolean } = {},
): Replay {
  const tokens = typeof schedule === 'string' ? tokensOf(schedule) : schedule
  const exec = new Execution(scenario, options.trace ?? true)
  const skipped: string[] = []
  for (const token of tokens) {
    if (exec.violation !== undefined) break
    if (!exec.step(token)) skipped.push(token.id)
  }
  exec.finish(options.maxSteps ?? 10_000)
  return { net: exec.net, violation: exec.violation, skipped }
}
