/**
 * Ample sets for the stateful search (Valmari's stubborn sets, Clarke/Grumberg/Peled's C0-C3):
 * a state expands only the choices of a set of nodes N closed under what could interfere with
 * them before one of their choices runs, instead of every choice. Safety verdicts stay exact
 * when the scenario says what its invariant reads (`reads`, see `por-visibility.ts`) and who may
 * send to whom (`communication`).
 *
 * C1 (persistence). A choice belongs to the node it runs on (a delivery to its receiver); two
 * deliveries to different nodes commute (`independent`). A timer, request or planned action moves
 * virtual time, and a fault spends the shared budget: they are dependent with everything, so a
 * state where one is enabled expands fully. N starts from one node p and grows to a fixpoint by
 * the stubborn-set rules: a delivery to a node of N that is not yet sent is dependent with N's,
 * and its sender must act first (its necessary enabling set), so every node that may send to N
 * and can still act without N acting first joins N; so does every node that may set a timer or
 * cause a request (a future time-moving event is dependent with everything) and can act. "Can
 * act without N": has a choice enabled now, or may be sent to by such a node, through nodes
 * outside N. Without a `communication` declaration every node may send to every other, and N is
 * every node with a choice: no reduction.
 *
 * C2 (visibility) and C3 (cycles) are checked by the caller on the candidate (`stateful.ts`):
 * an ample set that emits an event the invariant reads, runs on a node whose state it reads, or
 * leads back onto the search stack is replaced by every choice.
 */
import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { Execution } from './execution.js'
import type { Token } from './token.js'
import type { Communication } from './types.js'

/** What every state's candidate needs of the scenario, worked out once. */
export class AmpleSets {
  private readonly ids: string[]
  /** Per node (as text), the nodes it may send to after setup. */
  private readonly sendsTo: Map<string, string[]>
  private readonly timed: Set<string>

  constructor(
    readonly communication: Communication,
    nodeIds: readonly NodeId[],
    /** Nodes whose state the invariant reads: their choices are visible (C2). */
    private readonly readNodes: ReadonlySet<string>,
  ) {
    this.ids = nodeIds.map(String)
    this.sendsTo = new Map(
      nodeIds.map((id) => [String(id), communication.sendsTo(id).map((to) => String(to))]),
    )
    this.timed = new Set((communication.timed ?? []).map(String))
  }

  /** Whether a choice is dependent with every other (moves time, spends the fault budget). */
  static global(t: Token): boolean {
    return t.owner === undefined || t.how !== 'happen' || t.kind !== 'deliver'
  }

  /**
   * The choices of the smallest closed set of nodes, or undefined when that is every choice
   * (or a global choice is enabled, or every candidate has a visible choice).
   */
  candidate(exec: Execution, enabled: readonly Token[]): Token[] | undefined {
    const byNode = new Map<string, Token[]>()
    for (const t of enabled) {
      if (AmpleSets.global(t)) return undefined
      const owner = String(t.owner)
      const list = byNode.get(owner)
      if (list === undefined) byNode.set(owner, [t])
      else list.push(t)
    }
    if (byNode.size <= 1) return undefined
    const { net } = exec
    const alive = new Set(net.nodeIds.filter((id) => !net.isCrashed(id)).map(String))
    let best: Token[] | undefined
    for (const seed of byNode.keys()) {
      const closed = this.close(seed, byNode, alive)
      if (closed === undefined) continue
      let size = 0
      for (const node of closed) size += byNode.get(node)?.length ?? 0
      if (size >= enabled.length || (best !== undefined && size >= best.length)) continue
      best = []
      for (const node of closed) best.push(...(byNode.get(node) ?? []))
    }
    return best
  }

  /** N grown from `seed` to its fixpoint; undefined when it holds a node the invariant reads. */
  private close(
    seed: string,
    byNode: ReadonlyMap<string, Token[]>,
    alive: ReadonlySet<string>,
  ): Set<string> | undefined {
    const n = new Set([seed])
    for (;;) {
      if ([...n].some((node) => byNode.has(node) && this.readNodes.has(node))) return undefined
      const free = this.canAct(n, byNode, alive)
      const joining = [...free].filter(
        (r) => this.timed.has(r) || (this.sendsTo.get(r) ?? this.ids).some((to) => n.has(to)),
      )
      if (joining.length === 0) return n
      for (const r of joining) n.add(r)
    }
  }

  /** Nodes outside N that can act before N does: a choice now, or a message from such a node. */
  private canAct(
    n: ReadonlySet<string>,
    byNode: ReadonlyMap<string, Token[]>,
    alive: ReadonlySet<string>,
  ): Set<string> {
    const out = new Set<string>()
    const todo: string[] = []
    for (const node of byNode.keys())
      if (!n.has(node) && alive.has(node)) {
        out.add(node)
        todo.push(node)
      }
    while (todo.length > 0) {
      const from = todo.pop()!
      for (const to of this.sendsTo.get(from) ?? this.ids)
        if (!n.has(to) && !out.has(to) && alive.has(to)) {
          out.add(to)
          todo.push(to)
        }
    }
    return out
  }

  /**
   * The declaration is a promise the search checks on every step it takes (it cannot check the
   * steps the reduction skips): a send to a node `sendsTo` leaves out, or a timer, request or
   * action made by a node `timed` leaves out, is an error. `before`: the keys pending before.
   */
  checkStep(token: Token, before: ReadonlySet<string>, after: readonly string[]): void {
    if (AmpleSets.global(token)) return // faults and timers expand fully; planned actions run anything
    const from = String(token.owner)
    for (const key of after) {
      if (before.has(key) || key.endsWith('+d')) continue
      if (key.startsWith('m:')) {
        const allowed = this.sendsTo.get(from) ?? this.ids
        if (allowed.some((to) => key.startsWith(`m:${from}>${to}#`))) continue
        throw new InvalidArgumentError(
          `explore: communication.sendsTo(${from}) leaves out the message ${key} its handler sent`,
        )
      }
      if (!this.timed.has(from))
        throw new InvalidArgumentError(
          `explore: ${key} came of a delivery to ${from}, which communication.timed leaves out`,
        )
    }
  }
}
