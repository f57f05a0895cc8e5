/**
 * The state graph a stateful search walked, kept for liveness: per state which goals hold, what
 * is pending (for fairness), the choices taken out of it and where they led. Labels and tasks
 * are interned; a state costs its edges and its pending tasks as small numbers.
 */
import type { Execution } from './execution.js'
import type { LivenessGoal } from './types.js'

/** How a state ended a run: nothing pending at all, or stopped by `until`, `depth`, `maxStates`. */
export type End = 'deadlock' | 'bound'

export class StateGraph {
  /** The state hash of each state, by index. */
  readonly keys: string[] = []
  /** Per state, per goal: whether it holds. */
  readonly holds: boolean[][] = []
  /** Per state, the tasks pending there (ids into `tasks`). */
  readonly pending: number[][] = []
  /** Per state, its edges `[label id, target state]`. */
  readonly edges: Array<Array<[number, number]>> = []
  readonly expanded: boolean[] = []
  readonly ends: Array<End | undefined> = []
  /** Token labels by id, and the task each discharges (-1: none, e.g. a duplicate). */
  readonly labels: string[] = []
  readonly labelTask: number[] = []
  private readonly byKey = new Map<string, number>()
  private readonly labelIds = new Map<string, number>()
  private readonly taskIds = new Map<string, number>()

  constructor(readonly goals: ReadonlyArray<LivenessGoal>) {}

  /** The state's index, recording it (goals, pending tasks) when new. */
  state(key: string, exec: Execution): number {
    const known = this.byKey.get(key)
    if (known !== undefined) return known
    const index = this.keys.length
    this.byKey.set(key, index)
    this.keys.push(key)
    const view = { net: exec.net, events: exec.events }
    this.holds.push(this.goals.map((goal) => goal.holds(view)))
    this.pending.push(exec.pendingTasks().map((task) => this.task(task)))
    this.edges.push([])
    this.expanded.push(false)
    this.ends.push(undefined)
    return index
  }

  edge(from: number, label: string, to: number): void {
    let id = this.labelIds.get(label)
    if (id === undefined) {
      id = this.labels.length
      this.labelIds.set(label, id)
      this.labels.push(label)
      // Delivering or dropping a message discharges it; a timer, request or action happening too.
      const space = label.indexOf(' ')
      const how = label.slice(0, space)
      this.labelTask.push(
        how === 'happen' || how === 'drop' ? this.task(label.slice(space + 1)) : -1,
      )
    }
    const out = this.edges[from]!
    if (!out.some(([l, t]) => l === id && t === to)) out.push([id, to])
  }

  private task(text: string): number {
    let id = this.taskIds.get(text)
    if (id === undefined) {
      id = this.taskIds.size
      this.taskIds.set(text, id)
    }
    return id
  }
}
