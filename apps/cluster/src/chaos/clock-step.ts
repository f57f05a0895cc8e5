/**
 * clock-step: step the wall clock of the leader (half the time) or of a random node by
 * --step-ms, either way (seeded), for --fault-ms, then step it back. The parent tells the node
 * through its pipe; the machine's clock is never touched.
 */
import { sleep } from '../wait.js'
import { machineNow } from '../wire.js'
import type { Fault } from './context.js'

export const clockStep: Fault = async (ctx, record) => {
  const o = ctx.o
  // The leader half of the time: its leases (the leader's and the lock's) are what a step
  // of the wall clock could break.
  const l = ctx.cluster.currentLeader()
  const leaderNode = ctx.cluster.nodes.find((n) => n.id === l?.leader && n.state === 'up')
  const node =
    leaderNode !== undefined && ctx.random() < 0.5
      ? leaderNode
      : ctx.cluster.randomUpNode(() => ctx.random())
  if (node === undefined) {
    record.skipped = 'no node up'
    return
  }
  const deltaMs = (ctx.random() < 0.5 ? -1 : 1) * o.stepMs
  const pid = node.pid
  record.t = machineNow()
  record.targets = [node.id]
  record.deltaMs = deltaMs
  ctx.supervisor.send(node, { k: 'clock-step', deltaMs })
  ctx.note(
    `clock-step: ${node.id}'s wall clock steps ${deltaMs > 0 ? '+' : ''}${deltaMs} ms for ${o.faultMs} ms${node.id === l?.leader ? ' (the leader)' : ''}`,
  )
  ctx.status(`clock-step: ${node.id} off by ${deltaMs} ms`)
  await sleep(o.faultMs)
  record.until = machineNow()
  // The same incarnation only: a restarted node starts with an unstepped clock.
  if (node.pid === pid) ctx.supervisor.send(node, { k: 'clock-step', deltaMs: -deltaMs })
  ctx.note(`clock-step: ${node.id}'s wall clock stepped back`)
}
