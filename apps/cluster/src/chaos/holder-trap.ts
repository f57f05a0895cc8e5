/**
 * kill-holder and pause-holder strike a holder inside its critical section: right after the store
 * answered its read, before its write. The fault arms the trap; the next read that qualifies
 * springs it, in the same turn as the answer.
 */
import type { Node } from '../cluster-state.js'
import type { FaultRecord } from '../summary.js'
import { machineNow } from '../wire.js'
import type { ChaosContext } from './context.js'

/** How long a holder fault waits for a holder inside its critical section. */
export const TRAP_TIMEOUT_MS = 6_000

export class HolderTrap {
  private armed: { armedAt: number; spring: (node: Node, token: number) => void } | undefined

  /** Arms the trap: `spring` runs on the next qualifying read, unless `disarm` comes first. */
  arm(spring: (node: Node, token: number) => void): void {
    this.armed = { armedAt: machineNow(), spring }
  }

  disarm(): void {
    this.armed = undefined
  }

  /** The store answered `node`'s read with `token` (the leader a majority follows: `leader`). */
  read(node: Node, token: number, leader: () => string | undefined): void {
    if (this.armed === undefined) return
    const patient = machineNow() - this.armed.armedAt < TRAP_TIMEOUT_MS / 2
    // A holder that is not the leader, so that the fault hits the lock alone; any holder later.
    if (!(patient && node.id === leader())) {
      const trap = this.armed
      this.armed = undefined
      trap.spring(node, token)
    }
  }
}

/**
 * Waits (at most TRAP_TIMEOUT_MS) for a holder inside its critical section and does `act` to it
 * at once (SIGKILL, SIGSTOP), recorded in `record`; the node and its token, or undefined.
 */
export function catchHolder(
  ctx: ChaosContext,
  record: FaultRecord,
  act: (node: Node) => void,
): Promise<{ node: Node; token: number } | undefined> {
  ctx.status(`${record.kind}: waiting for a holder inside its critical section`)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ctx.trap.disarm()
      resolve(undefined)
    }, TRAP_TIMEOUT_MS)
    ctx.trap.arm((node, token) => {
      clearTimeout(timer)
      record.t = machineNow()
      record.targets = [node.id]
      record.token = token
      ctx.cluster.leaderFault(record.t, record.kind, [node.id])
      act(node)
      resolve({ node, token })
    })
  })
}
