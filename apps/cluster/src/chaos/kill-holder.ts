/** kill-holder: SIGKILL a node inside its critical section (not the leader, preferably), restart it. */
import { formatToken } from '../node/protocol.js'
import { sleep } from '../wait.js'
import { machineNow } from '../wire.js'
import type { Fault } from './context.js'
import { catchHolder } from './holder-trap.js'

export const killHolder: Fault = async (ctx, record) => {
  const sprung = await catchHolder(ctx, record, (node) => ctx.supervisor.kill(node))
  if (sprung === undefined) {
    record.skipped = 'no holder entered its critical section in time'
    return
  }
  const { node, token } = sprung
  ctx.note(
    `kill-holder: SIGKILL ${node.id} inside its critical section (token ${formatToken(token)})`,
  )
  ctx.status(
    `kill-holder: ${node.id} killed holding ${formatToken(token)}, restart in ${ctx.o.faultMs} ms`,
  )
  await sleep(ctx.o.faultMs)
  record.until = machineNow()
  ctx.supervisor.restart(node)
}
