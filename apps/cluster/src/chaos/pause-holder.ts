/**
 * pause-holder: SIGSTOP a node inside its critical section past its lease and until another
 * holder has used the counter, then SIGCONT: its late write meets the fence.
 */
import { formatToken } from '../node/protocol.js'
import { sleep, until } from '../wait.js'
import { machineNow } from '../wire.js'
import type { Fault } from './context.js'
import { catchHolder, TRAP_TIMEOUT_MS } from './holder-trap.js'

export const pauseHolder: Fault = async (ctx, record, pauseMs) => {
  const sprung = await catchHolder(ctx, record, (node) => ctx.supervisor.signal(node, 'SIGSTOP'))
  if (sprung === undefined) {
    record.skipped = 'no holder entered its critical section in time'
    return
  }
  const { node, token } = sprung
  ctx.note(
    `pause-holder: SIGSTOP ${node.id} inside its critical section (token ${formatToken(token)}) for ${pauseMs} ms`,
  )
  ctx.status(`pause-holder: ${node.id} paused holding ${formatToken(token)}`)
  await sleep(pauseMs)
  // Until another holder has used the counter with a newer token, so that the late write
  // meets the fence (bounded: if nobody else wants the lock, it goes through, rightly).
  await until(() => ctx.newestToken() > token, TRAP_TIMEOUT_MS)
  record.until = machineNow()
  ctx.supervisor.signal(node, 'SIGCONT')
  ctx.note(`pause-holder: SIGCONT ${node.id}: it will write with its old token`)
}
