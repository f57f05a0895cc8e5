/** pause-leader: SIGSTOP the leader (the lock's coordinator) past its leases, then SIGCONT. */
import { sleep, until } from '../wait.js'
import { machineNow } from '../wire.js'
import { type Fault, SETTLE_TIMEOUT_MS } from './context.js'

export const pauseLeader: Fault = async (ctx, record, pauseMs) => {
  ctx.status('pause-leader: waiting for a leader')
  if (!(await until(() => ctx.cluster.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
    record.skipped = 'no leader to pause'
    return
  }
  const { leader, term } = ctx.cluster.currentLeader()!
  const node = ctx.cluster.nodes.find((n) => n.id === leader)!
  record.t = machineNow()
  record.targets = [leader]
  ctx.cluster.leaderFault(record.t, record.kind, [leader])
  ctx.supervisor.signal(node, 'SIGSTOP')
  ctx.note(
    `pause-leader: SIGSTOP ${leader} (leader of term ${term}, the lock's coordinator) for ${pauseMs} ms, past its leases`,
  )
  ctx.status(`pause-leader: ${leader} paused`)
  await sleep(pauseMs)
  record.until = machineNow()
  ctx.supervisor.signal(node, 'SIGCONT')
  ctx.note(`pause-leader: SIGCONT ${leader}: it wakes up in an old term`)
}
