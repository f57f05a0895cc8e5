/**
 * Depth-first exploration with a visited set: a state (the network's fingerprint, the fault
 * budget used, the invariant's history) is expanded once, however many schedules lead to it.
 * States are kept as 64-bit hashes (`Execution.keyHash`) in a typed-array table (`VisitedTable`).
 * Backtracking restores a saved state when every protocol can be restored, else replays the prefix.
 *
 * Sleep sets and a visited set do not combine naively (Godefroid, 1996, ch. 6): a state first
 * expanded with sleep set S left S unexplored. A later visit with sleep set S' is skipped only
 * when S ⊆ S'; otherwise it explores the choices in S \ S' and the state keeps S ∩ S'. A visit
 * with more depth left than the first expands again. Sleep sets are compared by `Token.label`,
 * which names a choice by what it does: `m:1>2#3` may name another message on another path.
 *
 * With liveness goals, the search also records the state graph (`StateGraph`), without the
 * reduction, and `findLasso` looks for a run that never reaches each goal once it is done.
 */

import { InvalidArgumentError } from '../errors.js'
import { type Hash64, hashHex, hashOfHex } from '../hash64.js'
import type { KeyTaken } from '../sim/key-abstraction.js'
import { fail } from './dfs.js'
import { Execution, type ExecutionCheckpoint } from './execution.js'
import { lassoSchedules } from './lasso.js'
import { findLasso } from './liveness.js'
import { AmpleReduction } from './por-search.js'
import { StateGraph } from './state-graph.js'
import { Symmetry } from './symmetry.js'
import { independent, type Token } from './token.js'
import type {
  ExploreOptions,
  ExploreResult,
  ExploreScenario,
  LivenessGoal,
  LivenessResult,
} from './types.js'
import { VisitedTable } from './visited.js'

const labelOf = (t: Token) => t.label ?? t.id

interface State {
  /** Undefined when the network has no fingerprint. */
  hash: Hash64 | undefined
  label: (t: Token) => string
}

/** Nothing asleep. A visit's sleep set is its own, never changed: the visited set keeps it. */
const NOTHING_ASLEEP: Set<string> = new Set()
const NO_TOKENS: Token[] = []

/** The sleep set after `token`: what was asleep or done here and is independent of it. */
function sleepAfter(sleep: readonly Token[], done: readonly Token[], token: Token): Token[] {
  if (sleep.length === 0 && done.length === 0) return NO_TOKENS
  const out: Token[] = []
  for (const s of sleep) if (independent(s, token)) out.push(s)
  for (const s of done) if (independent(s, token)) out.push(s)
  return out
}

/**
 * Whether a label may name one choice otherwise in another state an abstraction merges with this
 * one: a delivery labelled by its message's text (a link that reorders; on a FIFO link, with an
 * abstraction, the label is the link's `head`). Requests, actions, timers (by key and due time,
 * which every key keeps) and faults are named alike in merged states. A timer key with '>' in it
 * counts too: the rule is then only more careful.
 */
const mayNameOtherwise = (label: string): boolean => label.includes('>') && !label.endsWith(' head')

/** The state graph's name for a state. */
const keyOf = (state: State): string | undefined =>
  state.hash === undefined ? undefined : hashHex(state.hash)

/** Stateful exploration, or undefined when the scenario's state cannot be fingerprinted. */
export function exploreStateful(
  scenario: ExploreScenario,
  options: ExploreOptions = {},
): ExploreResult | undefined {
  const root = new Execution(scenario, false, true)
  if (root.violation === undefined && !root.keyHash({ hi: 0, lo: 0 })) return undefined
  const symmetry = Symmetry.of(scenario, root.net.nodeIds, options)
  if (symmetry !== undefined && scenario.abstraction !== undefined)
    throw new InvalidArgumentError(
      'explore: a scenario with an abstraction cannot be symmetric too (the relabelled key is the whole state)',
    )
  /** What the key tells of the renaming it was taken under, state after state. */
  const taken: KeyTaken = { rename: undefined }
  /** A state's hash, and its choices' labels in the naming the hash stands for. */
  const stateOf = (exec: Execution): State => {
    if (symmetry !== undefined) {
      const s = symmetry.key(exec)
      return { hash: s === undefined ? undefined : hashOfHex(s.key), label: s?.label ?? labelOf }
    }
    const hash = { hi: 0, lo: 0 }
    if (!exec.keyHash(hash, taken)) return { hash: undefined, label: labelOf }
    const rename = taken.rename
    // Keyed under a renaming: sleep sets compare choices in the renamed naming.
    if (rename !== undefined) return { hash, label: (t) => exec.renamedLabel(t, rename) }
    return { hash, label: labelOf }
  }
  const depth = options.depth ?? 100
  const maxSchedules = options.maxSchedules ?? 100_000
  const maxStates = options.maxStates ?? 1_000_000
  const { onProgress } = options
  const progressEvery = options.progressEvery ?? 1_000_000
  if (!Number.isInteger(progressEvery) || progressEvery < 1)
    throw new InvalidArgumentError(
      `explore: progressEvery must be a whole number of states above 0, got ${progressEvery}`,
    )
  const goals: ReadonlyArray<LivenessGoal> =
    scenario.liveness === undefined
      ? []
      : 'holds' in scenario.liveness
        ? [scenario.liveness]
        : scenario.liveness
  // A lasso replays concrete names round a cycle of keys: merged states are not one state.
  if (goals.length > 0 && scenario.abstraction !== undefined)
    throw new InvalidArgumentError(
      'explore: a scenario with an abstraction cannot have liveness goals (a lasso replays concrete states)',
    )
  // Liveness needs the whole graph: sleep sets prune edges a cycle or its fairness may need.
  const graph = goals.length > 0 ? new StateGraph(goals) : undefined
  const reduce = graph === undefined && (options.reduction ?? true) !== false
  // Ample sets (`reduction: 'ample'`, por-search.ts): fewer choices per state, sleep sets kept.
  const ample = reduce
    ? AmpleReduction.of(scenario, root.net.nodeIds, options, symmetry !== undefined)
    : undefined
  let capped = false
  const terminal = new Set<string>()
  const visited = new VisitedTable()
  const result: ExploreResult = {
    mode: 'stateful',
    reduction: ample !== undefined ? 'ample' : reduce ? 'sleep' : 'none',
    schedules: 0,
    exhausted: true,
    cutByDepth: 0,
    terminalStates: 0,
    states: 0,
    transitions: 0,
    executions: 1,
    restores: 0,
    steps: 0,
  }
  let failed: Execution | undefined

  /** Goes back to `exec`'s state at `saved`, or replays its prefix when it could not be saved. */
  const backtrack = (
    exec: Execution,
    saved: ExecutionCheckpoint | undefined,
    prefix: readonly Token[],
  ): Execution => {
    if (saved === undefined) return replayPrefix(prefix)
    exec.load(saved)
    result.restores = (result.restores ?? 0) + 1
    return exec
  }

  const replayPrefix = (tokens: readonly Token[]): Execution => {
    const exec = new Execution(scenario, false, true)
    result.executions++
    for (const token of tokens) {
      exec.step(token)
      result.steps++
    }
    return exec
  }

  const abstracted = scenario.abstraction !== undefined

  /** The choices to explore from `exec`'s state, given its sleep set; records the visit. */
  const toExplore = (
    exec: Execution,
    hash: Hash64 | undefined,
    node: number | undefined,
    enabled: Token[],
    asleep: Set<string>,
    label: (t: Token) => string,
  ): Token[] => {
    const left = depth - exec.tokens.length
    const awake = (t: Token) => !asleep.has(label(t))
    const slot = hash === undefined ? -1 : visited.find(hash)
    if (hash === undefined || slot < 0 || left > visited.left(slot)) {
      if (result.states >= maxStates) {
        result.exhausted = false
        if (node !== undefined && !graph!.expanded[node]) graph!.ends[node] = 'bound'
        return []
      }
      if (node !== undefined) graph!.expanded[node] = true
      if (hash !== undefined) visited.set(hash, slot, left, asleep.size === 0 ? undefined : asleep)
      result.states++
      if (onProgress !== undefined && result.states % progressEvery === 0) onProgress(result)
      return asleep.size === 0 ? enabled : enabled.filter(awake)
    }
    // Met before with at least as much depth left: only what that visit left asleep, and this
    // one does not, is still to explore.
    const seenAsleep = visited.asleep(slot)
    if (seenAsleep === undefined) return []
    if (abstracted && [...seenAsleep].some(mayNameOtherwise)) {
      // An abstraction merges states that may hold one message with different dead fields: a
      // message on a link that reorders is labelled by its text, so that visit's asleep labels
      // may name this one's choices otherwise. Covered only when each is asleep here under the
      // same label; else every awake choice is explored again, and this visit's asleep set kept
      // (more than is left unexplored: a later visit skips less, never more).
      for (const name of seenAsleep) {
        if (asleep.has(name)) continue
        visited.set(hash, slot, visited.left(slot), asleep.size === 0 ? undefined : asleep)
        return asleep.size === 0 ? enabled : enabled.filter(awake)
      }
      return []
    }
    const todo = enabled.filter((t) => seenAsleep.has(label(t)) && awake(t))
    const still = [...seenAsleep].filter((name) => asleep.has(name))
    visited.set(hash, slot, visited.left(slot), still.length === 0 ? undefined : new Set(still))
    return todo
  }

  const visit = (exec: Execution, sleep: Token[], state: State): void => {
    const { hash, label } = state
    const key = graph === undefined ? undefined : keyOf(state)
    const node = key !== undefined ? graph!.state(key, exec) : undefined
    const enabled = exec.options(options)
    if (enabled.length === 0 || exec.tokens.length >= depth) {
      result.schedules++
      if (enabled.length > 0) result.cutByDepth++
      terminal.add(exec.terminalKey())
      // A deadlock only when nothing is pending at all, bounds aside.
      if (node !== undefined)
        graph!.ends[node] = exec.pendingTasks().length === 0 ? 'deadlock' : 'bound'
      return
    }
    const asleep = reduce && sleep.length > 0 ? new Set(sleep.map(label)) : NOTHING_ASLEEP
    if (ample !== undefined) {
      ample.enter(hash)
      try {
        expand(exec, sleep, state, node, ampleChoices(exec, hash, enabled), asleep)
      } finally {
        ample.leave(hash)
      }
    } else expand(exec, sleep, state, node, enabled, asleep)
  }

  /** With ample sets: the choices to expand, probed only where the state will be expanded. */
  const ampleChoices = (exec: Execution, hash: Hash64 | undefined, enabled: Token[]): Token[] => {
    const slot = hash === undefined ? -1 : visited.find(hash)
    const done = slot >= 0 && depth - exec.tokens.length <= visited.left(slot)
    if (done && visited.asleep(slot) === undefined) return enabled
    return ample!.choose(exec, enabled, {
      at: (saved) => {
        if (saved === undefined) return replayPrefix([...exec.tokens])
        exec.load(saved)
        return exec
      },
      onStack: (child) => ample!.onStack(stateOf(child).hash),
      stepped: () => {
        result.steps++
      },
    })
  }

  const expand = (
    exec: Execution,
    sleep: Token[],
    state: State,
    node: number | undefined,
    enabled: Token[],
    asleep: Set<string>,
  ): void => {
    const { hash, label } = state
    const todo = toExplore(exec, hash, node, enabled, asleep, label)
    if (todo.length === 0) return // a state already expanded: its futures were explored
    const before = ample?.pending(exec)
    const done: Token[] = []
    // A few labels: a scan is cheaper than a Set made per state.
    const tried: string[] | undefined = todo.length > 1 ? [] : undefined
    // Saved once, only when a second choice will need to come back here.
    const saved = todo.length > 1 ? exec.save() : undefined
    const prefix = saved === undefined && todo.length > 1 ? [...exec.tokens] : []
    let fresh: Execution | undefined = exec
    for (const token of todo) {
      if (failed !== undefined || !result.exhausted) return
      // Two identical messages on one link lead to one state: take one of them.
      if (tried !== undefined) {
        const name = label(token)
        if (tried.includes(name)) continue
        tried.push(name)
      }
      if (result.schedules >= maxSchedules) {
        result.exhausted = false
        capped = true
        return
      }
      const child = fresh ?? backtrack(exec, saved, prefix)
      fresh = undefined
      child.step(token)
      result.steps++
      result.transitions++
      if (before !== undefined) ample!.checkStep(token, before, child)
      if (child.violation !== undefined) {
        failed = child
        return
      }
      const childSleep = reduce ? sleepAfter(sleep, done, token) : NO_TOKENS
      const childState = stateOf(child)
      const childKey = node === undefined ? undefined : keyOf(childState)
      if (childKey !== undefined) graph!.edge(node!, labelOf(token), graph!.state(childKey, child))
      visit(child, childSleep, childState)
      done.push(token)
    }
  }

  const rootState = stateOf(root)
  const rootKey = keyOf(rootState)
  if (root.violation !== undefined) failed = root
  else visit(root, [], rootState)
  result.terminalStates = terminal.size
  if (symmetry !== undefined) result.symmetry = symmetry.info
  if (ample !== undefined) {
    result.ample = ample.info
    // A reordered run can be longer than the one it stands for: past a cut, no promise.
    if (ample.info.reduced > 0 && result.cutByDepth > 0) result.exhausted = false
  }
  if (graph !== undefined && rootKey !== undefined) {
    const start = graph.state(rootKey, root)
    result.liveness = goals.map((goal, i): LivenessResult => {
      const { lasso, unreached } = findLasso(graph, start, i)
      if (lasso !== undefined) {
        const found = lassoSchedules(scenario, options, graph, lasso, goal.name)
        return { name: goal.name, verdict: 'lasso', lasso: found, unreached }
      }
      const verdict =
        failed !== undefined || capped
          ? 'search incomplete'
          : unreached > 0
            ? 'not reached within the bound'
            : 'holds'
      return { name: goal.name, verdict, unreached }
    })
  }
  if (failed !== undefined) fail(result, scenario, failed, options)
  return result
}
