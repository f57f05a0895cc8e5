/**
 * The parent's side of the workload: the fenced store answers each node's read and write, one
 * at a time, and every operation (acquire, read, write, release) is recorded with its invocation
 * and completion for the history.
 */
import type { HolderTrap } from './chaos/holder-trap.js'
import type { Node } from './cluster-state.js'
import type { Operation } from './history.js'
import { formatToken } from './node/protocol.js'
import type { FencedStore } from './store.js'
import type { NodeLine, ParentLine } from './wire.js'

export class Workload {
  /** Every operation, by `node pid op`, in the order invoked. */
  readonly operations = new Map<string, Operation>()

  constructor(
    readonly store: FencedStore,
    private readonly send: (node: Node, line: ParentLine) => void,
    private readonly note: (text: string) => void,
  ) {}

  /** A line of the node about an operation: begun (`op`, `invoke`), ended (`done`). */
  onLine(
    node: Node,
    line: Extract<NodeLine, { k: 'op' | 'invoke' | 'done' }>,
    trap: HolderTrap | undefined,
    leader: () => string | undefined,
  ): void {
    if (line.k === 'op') {
      this.invoked(
        node,
        line.op,
        line.kind,
        line.t,
        line.token,
        line.kind === 'write' ? line.value : undefined,
      )
      this.storeOp(node, line, trap, leader)
    } else if (line.k === 'invoke') this.invoked(node, line.op, line.kind, line.t, line.token)
    else this.done(node, line)
  }

  /** An operation begins: `info` (indeterminate) until the node says how it ended. */
  private invoked(
    node: Node,
    op: number,
    f: Operation['f'],
    t: number,
    token?: number,
    value?: number,
  ) {
    this.operations.set(`${node.id} ${node.pid} ${op}`, {
      node: node.id,
      pid: node.pid ?? 0,
      op,
      f,
      ...(token === undefined ? {} : { token }),
      ...(value === undefined ? {} : { value }),
      invokedAt: t,
      outcome: 'info',
    })
  }

  /** The node says how an operation ended. */
  private done(node: Node, line: Extract<NodeLine, { k: 'done' }>): void {
    const op = this.operations.get(`${node.id} ${node.pid} ${line.op}`)
    if (op === undefined) return
    op.completedAt = line.t
    op.outcome = line.ok ? 'ok' : 'fail'
    if (line.token !== undefined) op.token = line.token
    if (line.value !== undefined) op.value = line.value
  }

  /**
   * A read or a write of the counter: the store's answer goes back to the node. An answered read
   * is offered to the holder trap (unless the run is stopping).
   */
  private storeOp(
    node: Node,
    line: Extract<NodeLine, { k: 'op' }>,
    trap: HolderTrap | undefined,
    leader: () => string | undefined,
  ): void {
    const store = this.store
    const res =
      line.kind === 'read'
        ? store.read(node.id, line.token)
        : store.write(node.id, line.token, line.value)
    this.send(
      node,
      res.ok
        ? { k: 'res', op: line.op, ok: true, value: res.value }
        : { k: 'res', op: line.op, ok: false, reason: res.reason },
    )
    if (!res.ok && res.reason.startsWith('fenced')) {
      this.note(
        `fencing: ${node.id}'s ${line.kind} with ${formatToken(line.token)} refused (newest ${formatToken(store.snapshot.newestToken)})`,
      )
    }
    if (res.ok && line.kind === 'read') trap?.read(node, line.token, leader)
  }
}
