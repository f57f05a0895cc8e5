import { type Clocks, newClocks, tickClocks } from './causality.js'
import type { Diagram } from './model.js'
import { finishDiagram, readerOf } from './trace.js'
import { type Build, id, newBuild } from './trace-build.js'
import { checkDocument, type Entry } from './trace-entries.js'
import { type GrowerState, restoreState, saveState } from './trace-grow-state.js'

/**
 * The diagram of a trace that only grows (a run stepped at its live end), built entry by entry:
 * the entries read so far and their clocks are kept, so a step reads only the entries it added.
 * `traceToDiagram` reads the entries in time order; entries appended no earlier than the last
 * one keep that order, so the diagram grown is `traceToDiagram`'s of the same trace (the tests
 * compare them). An entry earlier than the last, or a new process, cannot be appended: `grow`
 * says so, and the caller builds afresh.
 */
export class DiagramGrower {
  private build: Build
  private clocks: Clocks
  private read = 0
  private stamped = 0
  private end = 0

  constructor(
    nodes: readonly unknown[],
    private readonly seed: unknown,
  ) {
    this.build = newBuild(nodes)
    this.clocks = newClocks(this.build.processes)
  }

  /**
   * Its state now, to grow from again later (`restore`): cheap (the lists are shared, only their
   * lengths kept), and kept true while this grower grows on, since it only appends.
   */
  save(): GrowerState {
    return saveState(this.build, this.clocks, this.read, this.end)
  }

  /**
   * A grower back at `state` (saved by a grower of the same nodes and seed), to grow on from
   * there as if it had read only those entries; undefined when it cannot be brought back.
   */
  static restore(
    nodes: readonly unknown[],
    seed: unknown,
    state: GrowerState,
  ): DiagramGrower | undefined {
    const back = restoreState(state)
    if (!back) return undefined
    const g = new DiagramGrower(nodes, seed)
    g.build = back.build
    g.clocks = back.clocks
    g.read = state.read
    g.end = state.end
    g.stamped = back.build.events.length
    return g
  }

  /** How many entries the diagram holds. */
  get length(): number {
    return this.read
  }

  /**
   * Reads `entries[length..]` (the entries before are those read already); false, with nothing
   * read, when one of them cannot be appended.
   */
  grow(entries: readonly unknown[]): boolean {
    const fresh = checkDocument({ events: entries.slice(this.read) }).events
    let last = this.read === 0 ? Number.NEGATIVE_INFINITY : this.end
    for (const e of fresh) {
      if (e.t < last || !this.knows(e)) return false
      last = e.t
    }
    const b = this.build
    for (const [i, e] of fresh.entries()) readerOf(e.type)(b, this.read + i, e)
    this.read += fresh.length
    if (fresh.length > 0) this.end = last
    tickClocks(this.clocks, b.events, this.stamped, (d) =>
      d.messageId ? b.sends.get(d.messageId)?.send : undefined,
    )
    this.stamped = b.events.length
    return true
  }

  /** The diagram of the entries read (its events and timeline are the build's, grown in place). */
  diagram(): Diagram {
    return finishDiagram(this.build, this.read === 0 ? 0 : this.end, this.seed)
  }

  /** Whether every process `e` names has a line already (a new one would reorder the clocks). */
  private knows(e: Entry): boolean {
    return namesOf(e).every((p) => this.build.known.has(id(p)))
  }
}

/** The processes an entry names, as its reader takes them (`trace-messages.ts`, `trace-faults.ts`). */
function namesOf(e: Entry): unknown[] {
  switch (e.type) {
    case 'send':
    case 'deliver':
    case 'drop':
    case 'duplicate':
      return [e.from, e.to]
    case 'partition':
      return Array.isArray(e.groups) ? e.groups.flatMap((g) => (Array.isArray(g) ? g : [])) : []
    case 'loss':
    case 'mark':
    case 'heal':
      return []
    default:
      return e.node === undefined ? [] : [e.node]
  }
}
