/**
 * Source-set DPOR (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order
 * reduction", POPL 2014, Algorithm 1) for the stateless search: sleep sets as in `dfs.ts`, but a
 * state explores only the choices its backtrack set asks for. It starts with one; every race the
 * search executes (two dependent events, the later one not caused through a third) adds to the
 * backtrack set of the state before the earlier one a first event of a run that reverses it.
 * Every ordering of dependent events the program can produce is still explored (one schedule per
 * equivalence class at least), hence every terminal state; orderings sleep sets would try only to
 * find them blocked are not started.
 *
 * Each choice (a token: a delivery, a timer, a fault) is its own "process" with one event.
 * Happens-before of the executed run: event i precedes j when they are dependent (`independent`
 * says no: same node, a fault, a timer, request or action: unsure means dependent) or i created
 * j's event (sent the message, set the timer, made the duplicate: read from the keys pending
 * before and after i; on a FIFO link, the delivery before it), closed transitively. Choices
 * that take another away (a fault spending the budget, a crash, a cancelled timer) conflict with
 * it: both are explored from the state where both were possible. Where unsure, it falls back to
 * what sleep sets alone explore: every choice of every state on a run the depth bound cut (races
 * past the bound are never seen, and DPOR keeps every complete run, not every state on the way:
 * sleep sets keep every state within the bound), and every choice of a state whose backtrack
 * event is not enabled there (it should not happen).
 */

import { fail } from './dfs.js'
import { Execution } from './execution.js'
import { independent, type Token } from './token.js'
import type { ExploreOptions, ExploreResult, ExploreScenario } from './types.js'

/**
 * The "process" a token belongs to: one pending event, whatever is done with it (delivered,
 * dropped or duplicated are alternatives of one choice, all explored when it is); a fault alone.
 */
const processOf = (t: Token): string =>
  t.how === 'happen' || t.how === 'drop' || t.how === 'duplicate' ? t.key : t.id

interface Frame {
  enabled: Token[]
  /** Processes (`processOf`) to explore from this state. */
  backtrack: Set<string>
  /** Choices explored from here (or inherited asleep): not to be explored again. */
  sleep: Token[]
}

export function exploreDpor(
  scenario: ExploreScenario,
  options: ExploreOptions = {},
  /** Sees each terminal state's fingerprint (tests compare the sets across reductions). */
  onTerminal?: (fingerprint: string) => void,
): ExploreResult {
  const depth = options.depth ?? 100
  const maxSchedules = options.maxSchedules ?? 100_000
  const dependent = (a: Token, b: Token) => !independent(a, b)
  const terminal = new Set<string>()
  const result: ExploreResult = {
    mode: 'stateless',
    reduction: 'dpor',
    schedules: 0,
    states: 0,
    transitions: 0,
    executions: 1,
    exhausted: true,
    cutByDepth: 0,
    terminalStates: 0,
    steps: 0,
  }
  let failed: Execution | undefined
  /** The run being explored: its tokens, the frame of the state before each, what is pending. */
  const path: Token[] = []
  const frames: Frame[] = []
  /** Per executed event, the events before it in happens-before (transitively). */
  const before: Array<Set<number>> = []
  /** Keys pending, and keys offered as choices, in the state before event i. */
  const pending: Array<Set<string>> = []
  const offered: Array<Set<string>> = []

  const replayPrefix = (length: number): Execution => {
    const exec = new Execution(scenario, false)
    result.executions++
    for (let i = 0; i < length; i++) {
      exec.step(path[i]!)
      result.steps++
    }
    return exec
  }

  /**
   * The events that made `token` possible: the latest step after which its key was pending (the
   * send, the timer set), and the latest after which it was offered (on a FIFO link, the delivery
   * of the message before it).
   */
  const causesOf = (token: Token, at: number): number[] => {
    const out: number[] = []
    for (const sets of [pending, offered])
      for (let i = at - 1; i >= 0; i--)
        if (!sets[i]!.has(token.key) && sets[i + 1]!.has(token.key)) {
          out.push(i)
          break
        }
    return out
  }

  /** Records event `at` (already in `path`): its happens-before, then the races it ends. */
  const record = (at: number): void => {
    const token = path[at]!
    const causes = causesOf(token, at)
    const mine = new Set<number>()
    for (let i = 0; i < at; i++) {
      if (!causes.includes(i) && !dependent(path[i]!, token)) continue
      mine.add(i)
      for (const k of before[i]!) mine.add(k)
    }
    before[at] = mine
    for (let i = 0; i < at; i++) {
      // A race: dependent, not a cause, and not ordered through an event in between.
      if (causes.includes(i) || !dependent(path[i]!, token)) continue
      let through = false
      for (let k = i + 1; k < at && !through; k++) through = mine.has(k) && before[k]!.has(i)
      if (!through) reverse(i, at)
    }
  }

  /**
   * Makes sure the state before event `e` explores some first event of a run that has `at`
   * before `e`: the events after `e` not caused by it, then `at` (the paper's notdep(e, E).p).
   */
  const reverse = (e: number, at: number): void => {
    const v: number[] = []
    for (let k = e + 1; k < at; k++) if (!before[k]!.has(e)) v.push(k)
    v.push(at)
    const initials = v.filter((k) => !v.some((m) => m !== k && before[k]!.has(m)))
    const frame = frames[e]!
    const procs = initials.map((k) => processOf(path[k]!))
    if (procs.some((p) => frame.backtrack.has(p))) return
    const enabled = procs.find((p) => frame.enabled.some((t) => processOf(t) === p))
    if (enabled !== undefined) frame.backtrack.add(enabled)
    else explore(frame)
  }

  /** Every choice from this state: what sleep sets alone would explore. */
  const explore = (frame: Frame): void => {
    for (const t of frame.enabled) frame.backtrack.add(processOf(t))
  }

  /**
   * A choice `token` took away (a fault budget spent, a timer cancelled, a crashed node's) never
   * runs later, so no race names it: the state it was taken from explores it too.
   */
  const disabled = (frame: Frame, token: Token, after: readonly Token[]): void => {
    const left = new Set(after.map((t) => t.id))
    for (const t of frame.enabled)
      if (!left.has(t.id) && processOf(t) !== processOf(token)) frame.backtrack.add(processOf(t))
  }

  const visit = (exec: Execution, sleep: Token[], enabled: Token[]): void => {
    const d = path.length
    if (enabled.length === 0 || d >= depth) {
      result.schedules++
      if (enabled.length > 0) {
        result.cutByDepth++
        // Races past the bound are never seen: every state on the way explores every choice.
        for (const frame of frames) explore(frame)
      }
      const fingerprint = exec.fingerprint()
      terminal.add(fingerprint)
      onTerminal?.(fingerprint)
      return
    }
    result.states++
    const frame: Frame = { enabled, backtrack: new Set(), sleep: [...sleep] }
    frames[d] = frame
    const asleep = (t: Token) => frame.sleep.some((s) => s.id === t.id)
    const first = enabled.find((t) => !asleep(t))
    if (first === undefined) return
    frame.backtrack.add(processOf(first))
    let fresh: Execution | undefined = exec
    for (;;) {
      if (failed !== undefined) return
      const token = enabled.find((t) => frame.backtrack.has(processOf(t)) && !asleep(t))
      if (token === undefined) return
      if (result.schedules >= maxSchedules) {
        result.exhausted = false
        return
      }
      const child = fresh ?? replayPrefix(d)
      fresh = undefined
      child.step(token)
      result.steps++
      result.transitions++
      path.length = d
      path.push(token)
      frames.length = d + 1
      before.length = d
      const next = child.options(options)
      pending.length = d + 1
      offered.length = d + 1
      pending[d + 1] = new Set(child.net.pendingKeys())
      offered[d + 1] = new Set(next.map((t) => t.key))
      record(d)
      disabled(frame, token, next)
      if (child.violation !== undefined) {
        failed = child
        return
      }
      visit(
        child,
        frame.sleep.filter((s) => !dependent(s, token)),
        next,
      )
      frame.sleep.push(token)
    }
  }

  const root = new Execution(scenario, false)
  if (root.violation !== undefined) failed = root
  else {
    const enabled = root.options(options)
    pending[0] = new Set(root.net.pendingKeys())
    offered[0] = new Set(enabled.map((t) => t.key))
    visit(root, [], enabled)
  }
  result.terminalStates = terminal.size
  if (failed !== undefined) fail(result, scenario, failed, options)
  return result
}
