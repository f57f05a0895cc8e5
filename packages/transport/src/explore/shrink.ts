/**
 * Shortens a counterexample: the shortest prefix of its schedule that still breaks the invariant
 * when virtual time decides the rest, then without each step that is not needed.
 */
import { replay } from './replay.js'
import { formatSchedule, type Token } from './token.js'
import type { ExploreOptions, ExploreScenario } from './types.js'

const breaks = (scenario: ExploreScenario, tokens: readonly Token[], maxSteps: number) =>
  replay(scenario, tokens, { trace: false, maxSteps }).violation !== undefined

export function shrink(
  scenario: ExploreScenario,
  tokens: readonly Token[],
  options: ExploreOptions,
): string {
  const maxSteps = Math.max(1000, (options.depth ?? 100) * 10)
  let best = [...tokens]
  for (let k = 0; k < tokens.length; k++) {
    const prefix = tokens.slice(0, k)
    if (breaks(scenario, prefix, maxSteps)) {
      best = prefix
      break
    }
  }
  for (let i = best.length - 1; i >= 0; i--) {
    const without = [...best.slice(0, i), ...best.slice(i + 1)]
    if (breaks(scenario, without, maxSteps)) best = without
  }
  return formatSchedule(best)
}
