/** The kills that restart their victim: SIGKILL now, the same state file after --fault-ms. */
import type { Node } from '../cluster-state.js'
import type { FaultRecord } from '../summary.js'
import { sleep } from '../wait.js'
import { machineNow } from '../wire.js'
import type { ChaosContext } from './context.js'

/** SIGKILL `node` now, restart it with its state file after --fault-ms. */
export async function killAndRestart(
  ctx: ChaosContext,
  record: FaultRecord,
  node: Node,
  why: string,
): Promise<void> {
  record.t = machineNow()
  record.targets = [node.id]
  ctx.cluster.leaderFault(record.t, record.kind, [node.id])
  ctx.note(`${record.kind}: SIGKILL ${node.id} (pid ${node.pid}${why})`)
  ctx.supervisor.kill(node)
  ctx.status(`${record.kind}: ${node.id} killed, restart in ${ctx.o.faultMs} ms`)
  await sleep(ctx.o.faultMs)
  record.until = machineNow()
  ctx.supervisor.restart(node)
}
