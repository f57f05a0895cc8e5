/** kill-leader: SIGKILL the leader a majority follows, restart it after --fault-ms. */
import { until } from '../wait.js'
import { type Fault, SETTLE_TIMEOUT_MS } from './context.js'
import { killAndRestart } from './kill-and-restart.js'

export const killLeader: Fault = async (ctx, record) => {
  ctx.status('kill-leader: waiting for a leader')
  if (!(await until(() => ctx.cluster.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
    record.skipped = 'no leader to kill'
    return
  }
  const { leader, term } = ctx.cluster.currentLeader()!
  const node = ctx.cluster.nodes.find((n) => n.id === leader)!
  await killAndRestart(ctx, record, node, `, leader of term ${term}`)
}
