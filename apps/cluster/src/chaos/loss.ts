/**
 * loss: nft drops --loss percent of the packets entering every node for --fault-ms, in the
 * background: the next faults happen under loss (namespace mode only).
 */
import { machineNow } from '../wire.js'
import type { Fault } from './context.js'

export const loss: Fault = async (ctx, record) => {
  const { o, hosts, network } = ctx
  record.t = machineNow()
  record.targets = ctx.cluster.nodes.map((n) => n.id)
  hosts.setLoss(o.lossPercent)
  network.lossOn = true
  ctx.recordFault({ t: machineNow(), type: 'loss', percent: o.lossPercent })
  ctx.note(`loss: ${o.lossPercent}% of the packets entering every node dropped for ${o.faultMs} ms`)
  ctx.status(`loss: ${o.lossPercent}% of packets dropped`)
  network.lossEnds = setTimeout(() => {
    if (!network.lossOn) return
    network.lossOn = false
    hosts.setLoss(0)
    record.until = machineNow()
    ctx.recordFault({ t: machineNow(), type: 'loss', percent: 0 })
    ctx.note('loss ended')
  }, o.faultMs)
}
