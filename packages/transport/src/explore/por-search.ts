/**
 * The ample-set reduction as the stateful search uses it (`reduction: 'ample'`): per state the
 * choices to expand (`por.ts` picks a candidate, `por-visibility.ts` checks C2 and C3 on it), the
 * search stack for C3, the declaration's check on every step, and the figures for the result.
 */
import { type Hash64, hashHex } from '../hash64.js'
import type { NodeId } from '../ids.js'
import type { Execution } from './execution.js'
import { AmpleSets } from './por.js'
import { ampleHolds, type Probe, Visibility } from './por-visibility.js'
import type { Token } from './token.js'
import type { AmpleInfo, ExploreOptions, ExploreScenario } from './types.js'

export class AmpleReduction {
  readonly info: AmpleInfo = { reduced: 0, leftOut: 0, refused: 0 }
  /** States on the search stack (C3), by hash; a count, as a state may come back deeper. */
  private readonly stack = new Map<string, number>()

  private constructor(
    private readonly sets: AmpleSets,
    private readonly visibility: Visibility,
    /** Whether the scenario declared its communication: only a declaration needs checking. */
    private readonly declared: boolean,
  ) {}

  /**
   * The reduction for this search, or undefined: not asked for, no `reads` declared, or symmetry
   * on (orbits and ample sets are not combined here).
   */
  static of(
    scenario: ExploreScenario,
    nodeIds: readonly NodeId[],
    options: ExploreOptions,
    symmetric: boolean,
  ): AmpleReduction | undefined {
    if (options.reduction !== 'ample' || scenario.reads === undefined || symmetric) return undefined
    const visibility = new Visibility(scenario.reads)
    // Undeclared communication: anyone may send to anyone and set timers.
    const communication = scenario.communication ?? { sendsTo: () => nodeIds, timed: nodeIds }
    const sets = new AmpleSets(communication, nodeIds, visibility.nodes)
    return new AmpleReduction(sets, visibility, scenario.communication !== undefined)
  }

  enter(hash: Hash64 | undefined): void {
    if (hash === undefined || !this.declared) return
    const key = hashHex(hash)
    this.stack.set(key, (this.stack.get(key) ?? 0) + 1)
  }

  leave(hash: Hash64 | undefined): void {
    if (hash === undefined || !this.declared) return
    const key = hashHex(hash)
    const count = this.stack.get(key)! - 1
    if (count === 0) this.stack.delete(key)
    else this.stack.set(key, count)
  }

  onStack(hash: Hash64 | undefined): boolean {
    // Without a hash the search cannot tell a cycle: treat it as one.
    return hash === undefined || this.stack.has(hashHex(hash))
  }

  /** The choices to expand at `exec`'s state: an ample set that keeps C1-C3, else `enabled`. */
  choose(exec: Execution, enabled: Token[], probe: Probe): Token[] {
    // Undeclared, anyone may send to anyone: every node with a choice joins any N (por.ts).
    if (!this.declared) return enabled
    const candidate = this.sets.candidate(exec, enabled)
    if (candidate === undefined) return enabled
    if (!ampleHolds(exec, candidate, this.visibility, probe)) {
      this.info.refused++
      return enabled
    }
    this.info.reduced++
    this.info.leftOut += enabled.length - candidate.length
    return candidate
  }

  /** The keys pending at a state, for `checkStep`; undefined when there is nothing to check. */
  pending(exec: Execution): Set<string> | undefined {
    return this.declared ? new Set(exec.net.pendingKeys()) : undefined
  }

  /** Throws when the step did what the scenario's `communication` says it never does. */
  checkStep(token: Token, before: ReadonlySet<string>, child: Execution): void {
    this.sets.checkStep(token, before, child.net.pendingKeys())
  }
}
