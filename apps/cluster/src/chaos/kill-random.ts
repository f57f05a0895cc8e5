/** kill-random: SIGKILL a node picked at random (seeded), whatever its role; restart it. */
import type { Fault } from './context.js'
import { killAndRestart } from './kill-and-restart.js'

export const killRandom: Fault = async (ctx, record) => {
  const node = ctx.cluster.randomUpNode(() => ctx.random())
  if (node === undefined) {
    record.skipped = 'no node up'
    return
  }
  const l = ctx.cluster.currentLeader()
  await killAndRestart(ctx, record, node, l?.leader === node.id ? `, leader of term ${l.term}` : '')
}
