import type { ExploreOptions, ExploreScenario } from '@sd/transport/explore'

/** How `sd check <scenario>` explores a scenario: a small configuration and its invariant. */
export interface CheckSpec {
  /** The playground scenario it checks (the name `sd check` takes). */
  scenario: string
  /** What is explored, in one sentence, for the output. */
  what: string
  defaultN: number
  minN: number
  maxN: number
  /** Bounds that exhaust the default configuration (the command's flags override them). */
  defaults: ExploreOptions
  build(n: number): ExploreScenario
}
