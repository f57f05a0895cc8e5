import { InvalidArgumentError } from '@sd/transport'
import { buildCsr, type Csr } from './csr.js'
import { deadlockedComponents } from './deadlocked.js'
import { checkId, IdIndex } from './id-index.js'
import { johnson } from './johnson.js'
import { cycleFrom, pathTo } from './local-search.js'
import { Scratch } from './scratch.js'
import { groupComponents, tarjan } from './tarjan.js'
import type {
  ComponentOptions,
  ElementaryCyclesOptions,
  GraphSize,
  ProcessId,
  Wait,
} from './types.js'

/**
 * A wait-for graph: one node per process, an edge `from -> to` when `from` waits for `to` (for a
 * resource `to` holds). Processes appear with their first wait (or `addProcess`) and stay until
 * `removeProcess`, which a lock manager calls when a transaction ends.
 *
 * Deadlock, in the AND model (a process needs every resource it waits for, as with locks): a process
 * on a cycle waits for itself, and so does every process that waits, directly or through others,
 * for one on a cycle. `onCycle` is the first, `isDeadlocked` both.
 *
 * Questions about one process (`onCycle`, `isDeadlocked`, `findCycle(start)`, `addWaitDetect`)
 * search only what that process reaches; questions about the whole graph (components, the
 * deadlocked set, Johnson's cycles) take a compact snapshot of it first and run in O(V + E).
 */
export class WaitForGraph<Id extends ProcessId = ProcessId> {
  private readonly index = new IdIndex<Id>()
  // Index-keyed successor and predecessor sets, created with a process's first wait.
  private readonly successors: (Set<number> | undefined)[] = []
  private readonly predecessors: (Set<number> | undefined)[] = []
  private waitCount = 0
  private readonly scratch = new Scratch()

  /**
   * A graph with `waits` in it. Its id type is `ProcessId` unless given, as in
   * `new WaitForGraph<string>(waits)`: not inferred from `waits`, which would narrow it to the
   * literal ids of the first waits and refuse every later process.
   */
  constructor(waits?: Iterable<Wait<NoInfer<Id>>>) {
    if (waits !== undefined) for (const [from, to] of waits) this.addWait(from, to)
  }

  get size(): GraphSize {
    return { processes: this.index.count, waits: this.waitCount }
  }

  /** Adds a process with no waits; false if it was there. */
  addProcess(id: Id): boolean {
    if (this.index.indexOf(id) !== undefined) return false
    checkId(id)
    this.index.intern(id)
    return true
  }

  /**
   * `from` now waits for `to`; false if it already did (idempotent). Throws InvalidArgumentError for
   * a process waiting for itself, or an id that is no string or finite number.
   */
  addWait(from: Id, to: Id): boolean {
    // Both checked before any change, so a bad call leaves the graph as it was.
    checkId(from)
    checkId(to)
    rejectSelfWait(from, to)
    const f = this.index.intern(from)
    const t = this.index.intern(to)
    let out = this.successors[f]
    if (out === undefined) this.successors[f] = out = new Set()
    else if (out.has(t)) return false
    out.add(t)
    let into = this.predecessors[t]
    if (into === undefined) this.predecessors[t] = into = new Set()
    into.add(f)
    this.waitCount++
    return true
  }

  /**
   * Adds the wait and returns the cycle it closes, if any: a shortest one, as
   * `[from, to, ..., last]` where `last` waits for `from`. Searches only from `to` back to `from`, so
   * it costs what `to` reaches, not the whole graph: what a lock manager calls on every new wait.
   * Returns a cycle also when the wait was already there and closed one. A wait into a process that
   * is deadlocked without closing a cycle (`to` only reaches one) returns undefined: that deadlock
   * was reported when its cycle closed; `isDeadlocked(from)` says so.
   */
  addWaitDetect(from: Id, to: Id): Id[] | undefined {
    this.addWait(from, to)
    return this.cycleIfWaits(from, to)
  }

  /**
   * The cycle that `from` waiting for `to` closes (as `addWaitDetect` reports it), without adding
   * the wait: to refuse or reorder a request before it deadlocks.
   */
  cycleIfWaits(from: Id, to: Id): Id[] | undefined {
    checkId(from)
    checkId(to)
    rejectSelfWait(from, to)
    const f = this.index.indexOf(from)
    const t = this.index.indexOf(to)
    if (f === undefined || t === undefined) return undefined
    const path = pathTo(this.successors, t, f, this.scratch, this.index.capacity)
    if (path === undefined) return undefined
    return [from, ...this.index.idsOf(path)]
  }

  /** `from` no longer waits for `to`; false if it did not. Both processes stay. */
  removeWait(from: Id, to: Id): boolean {
    const f = this.index.indexOf(from)
    const t = this.index.indexOf(to)
    if (f === undefined || t === undefined) return false
    if (this.successors[f]?.delete(t) !== true) return false
    this.predecessors[t]!.delete(f)
    this.waitCount--
    return true
  }

  /** Removes the process and every wait from or to it; false if it was not there. */
  removeProcess(id: Id): boolean {
    const v = this.index.indexOf(id)
    if (v === undefined) return false
    const out = this.successors[v]
    if (out !== undefined) {
      for (const w of out) this.predecessors[w]!.delete(v)
      this.waitCount -= out.size
      this.successors[v] = undefined
    }
    const into = this.predecessors[v]
    if (into !== undefined) {
      for (const u of into) this.successors[u]!.delete(v)
      this.waitCount -= into.size
      this.predecessors[v] = undefined
    }
    this.index.release(v)
    return true
  }

  hasProcess(id: Id): boolean {
    return this.index.indexOf(id) !== undefined
  }

  hasWait(from: Id, to: Id): boolean {
    const f = this.index.indexOf(from)
    const t = this.index.indexOf(to)
    return f !== undefined && t !== undefined && this.successors[f]?.has(t) === true
  }

  /** The processes `id` waits for, in the order the waits were added. */
  waitsOf(id: Id): Id[] {
    return this.neighbours(this.successors, id)
  }

  /** The processes that wait for `id`, in the order the waits were added. */
  waitersOf(id: Id): Id[] {
    return this.neighbours(this.predecessors, id)
  }

  processes(): Id[] {
    return this.index.all()
  }

  /** Every wait as `[from, to]`. */
  waits(): [Id, Id][] {
    const list: [Id, Id][] = []
    for (let v = 0; v < this.successors.length; v++) {
      const out = this.successors[v]
      if (out === undefined) continue
      const from = this.index.idAt(v)!
      for (const w of out) list.push([from, this.index.idAt(w)!])
    }
    return list
  }

  /** Whether `id` is on a cycle, i.e. waits, through others, for itself. Costs what `id` reaches. */
  onCycle(id: Id): boolean {
    return this.cycleThrough(id) !== undefined
  }

  /**
   * Whether `id` is deadlocked in the AND model: it is on a cycle or waits, directly or through
   * others, for a process on one (it waits for all of its successors, so one blocked forever blocks
   * it too). Costs what `id` reaches.
   */
  isDeadlocked(id: Id): boolean {
    const v = this.index.indexOf(id)
    if (v === undefined) return false
    return cycleFrom(this.successors, [v], this.scratch, this.index.capacity) !== undefined
  }

  /**
   * Every deadlocked process (AND model, see `isDeadlocked`), in O(V + E): the strongly connected
   * components with a cycle, then everything that reaches them.
   */
  deadlockedProcesses(): Id[] {
    const csr = this.snapshot()
    const labels = tarjan(csr)
    const dead = deadlockedComponents(csr, labels, groupComponents(labels))
    const list: Id[] = []
    for (let v = 0; v < csr.n; v++) {
      if (dead[labels.component[v]!] === 1) list.push(this.index.idAt(v)!)
    }
    return list
  }

  /**
   * One witness cycle, as a list of processes where each waits for the next and the last for the
   * first (which is not repeated); undefined when there is none. With `start`: a cycle through
   * `start` if it is on one; otherwise a cycle `start` reaches (the one that deadlocks it), so the
   * answer is undefined exactly when `start` is not deadlocked. Iterative depth-first search,
   * linear in what it visits.
   */
  findCycle(start?: Id): Id[] | undefined {
    if (start === undefined) {
      const cycle = cycleFrom(
        this.successors,
        this.liveIndices(),
        this.scratch,
        this.index.capacity,
      )
      return cycle === undefined ? undefined : this.index.idsOf(cycle)
    }
    const through = this.cycleThrough(start)
    if (through !== undefined) return through
    const v = this.index.indexOf(start)
    if (v === undefined) return undefined
    const cycle = cycleFrom(this.successors, [v], this.scratch, this.index.capacity)
    return cycle === undefined ? undefined : this.index.idsOf(cycle)
  }

  /**
   * The strongly connected components (Tarjan's algorithm, iterative, O(V + E)): processes that
   * all wait for each other, directly or not. A component of two processes or more is a set of
   * processes deadlocked on each other; every process is in exactly one component. Listed sinks
   * first: a component comes before every component that waits for it.
   */
  stronglyConnectedComponents(options: ComponentOptions = {}): Id[][] {
    const csr = this.snapshot()
    const labels = tarjan(csr)
    const { start, members } = groupComponents(labels)
    const components: Id[][] = []
    for (let c = 0; c < labels.count; c++) {
      const from = start[c]!
      const to = start[c + 1]!
      if (to - from === 1) {
        const id = this.index.idAt(members[from]!)
        if (options.cyclicOnly === true || id === undefined) continue // a free index is no process
        components.push([id])
      } else {
        components.push(this.index.idsOf(members.subarray(from, to)))
      }
    }
    return components
  }

  /**
   * Every elementary cycle (no process twice), up to `limit` of them, by Johnson's algorithm: each
   * once, listed from its process with the smallest internal index (the earliest added, as long as
   * no removed process's slot was reused). Their number can be exponential in the number of
   * processes, hence the limit; O((V + E) (C + 1)) for C cycles returned.
   */
  elementaryCycles(options: ElementaryCyclesOptions): Id[][] {
    const limit = options?.limit
    if (
      typeof limit !== 'number' ||
      !(limit >= 1) ||
      (limit !== Infinity && !Number.isInteger(limit))
    ) {
      throw new InvalidArgumentError(
        `elementaryCycles limit ${String(limit)} is not a positive integer or Infinity: a graph can have exponentially many cycles, so say how many to return`,
      )
    }
    return johnson(this.snapshot(), limit).map((cycle) => this.index.idsOf(cycle))
  }

  private cycleThrough(id: Id): Id[] | undefined {
    const v = this.index.indexOf(id)
    if (v === undefined) return undefined
    const path = pathTo(this.successors, v, v, this.scratch, this.index.capacity)
    return path === undefined ? undefined : this.index.idsOf(path)
  }

  private neighbours(sets: readonly (Set<number> | undefined)[], id: Id): Id[] {
    const v = this.index.indexOf(id)
    const set = v === undefined ? undefined : sets[v]
    return set === undefined ? [] : this.index.idsOf([...set])
  }

  private *liveIndices(): Generator<number> {
    for (let v = 0; v < this.index.capacity; v++) if (this.index.idAt(v) !== undefined) yield v
  }

  /** The CSR snapshot the whole-graph algorithms run on; free indices are nodes without edges. */
  private snapshot(): Csr {
    return buildCsr(this.successors, this.index.capacity, this.waitCount)
  }
}

function rejectSelfWait(from: ProcessId, to: ProcessId): void {
  if (from !== to) return
  throw new InvalidArgumentError(
    `process ${JSON.stringify(from)} cannot wait for itself: a wait-for graph has no self-waits (a process that asks again for a lock it holds is for the lock manager to handle)`,
  )
}
