/**
 * partition: on each host of a minority that includes the leader, nft drops every packet from
 * and to the majority's addresses; healed after --fault-ms (namespace mode only).
 */
import { sleep, until } from '../wait.js'
import { machineNow } from '../wire.js'
import { type Fault, SETTLE_TIMEOUT_MS } from './context.js'

export const partition: Fault = async (ctx, record) => {
  const { o, cluster, hosts } = ctx
  const cut = ctx.network.cut
  ctx.status('partition: waiting for a leader')
  if (!(await until(() => cluster.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
    record.skipped = 'no leader to cut off'
    return
  }
  const { leader } = cluster.currentLeader()!
  const size = Math.floor((o.n - 1) / 2)
  const minority = [
    cluster.nodes.find((n) => n.id === leader)!,
    ...cluster.nodes.filter((n) => n.id !== leader).slice(0, size - 1),
  ]
  record.t = machineNow()
  record.targets = minority.map((n) => n.id)
  cluster.leaderFault(record.t, record.kind, record.targets)
  hosts.partition(minority.map((n) => n.index))
  for (const n of minority) cut.add(n.id)
  // For the checkers, the cut starts once every rule is in place (and ends, below, as the
  // first is removed): a leader is never judged cut off before it really was.
  ctx.recordFault({
    t: machineNow(),
    type: 'partition',
    groups: [record.targets, cluster.nodes.filter((n) => !cut.has(n.id)).map((n) => n.id)],
  })
  ctx.note(
    `partition: ${record.targets.join(', ')} cut off from the others for ${o.faultMs} ms (nft drop rules)`,
  )
  ctx.status(`partition: ${record.targets.join(', ')} cut off`)
  await sleep(o.faultMs)
  ctx.recordFault({ t: machineNow(), type: 'heal' })
  hosts.heal()
  cut.clear()
  record.until = machineNow()
  ctx.note('partition healed')
}
