/**
 * One-way goodput of the reliable UDP link under real kernel packet loss, side by side with TCP
 * (node:net) under the same loss. Sender and receiver are separate processes in two network
 * namespaces joined by a veth pair; nftables drops a random share of the packets entering each.
 * Needs root, iproute2 and nftables; without them it prints why and reports nothing.
 *
 * Environment: SD_GOODPUT_ROUNDS (5), SD_GOODPUT_COUNT (4000), SD_GOODPUT_LOSS ("0,1,5", percent),
 * SD_GOODPUT_DEADLINE_S (60, per transfer), SD_GOODPUT_UDP_MODULE (another build to measure).
 */

import { netnsUnavailable } from '../../test-support/netns-hosts.js'
import { cleanupOnExit } from './lib/exit-cleanup.js'
import type { Contender } from './lib/goodput-protocol.js'
import { type GoodputSetup, goodputResults, type LossRecords } from './lib/goodput-results.js'
import { GoodputRig, type Transfer } from './lib/goodput-rig.js'
import { killAllWorkersSync } from './lib/goodput-workers.js'
import { createNetnsPair, type NetnsPair } from './lib/netns.js'
import type { BenchResult } from './lib/result.js'

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number`)
  return value
}

const setup: GoodputSetup = {
  rounds: Math.round(envNumber('SD_GOODPUT_ROUNDS', 5)),
  count: Math.round(envNumber('SD_GOODPUT_COUNT', 4000)),
  size: 100,
  deadlineS: envNumber('SD_GOODPUT_DEADLINE_S', 60),
}
const lossRates = (process.env.SD_GOODPUT_LOSS ?? '0,1,5').split(',').map(Number)
if (lossRates.some((p) => !(p >= 0 && p <= 100))) {
  throw new RangeError('SD_GOODPUT_LOSS must be comma-separated percentages')
}
const deadlineMs = setup.deadlineS * 1000
const contenders: Contender[] = ['udp', 'tcp']
const warmUpCount = 1000

const log = (line: string) => console.error(`  udp-goodput: ${line}`)

function describe(t: Transfer): string {
  const loss = t.packets.seen > 0 ? ((t.packets.dropped / t.packets.seen) * 100).toFixed(2) : '0'
  const status = t.complete ? '' : ` INCOMPLETE ${t.delivered}/${setup.count}`
  const errors = t.errors.length > 0 ? ` errors: ${t.errors.join('; ')}` : ''
  const packets = `${loss}% of ${t.packets.seen} packets dropped`
  return `${t.contender} ${Math.round(t.goodput)} msg/s${status} (${packets})${errors}`
}

/** Unrecorded lossless transfers that warm up the workers' JIT; then restores `lossPercent`. */
async function warmUp(pair: NetnsPair, rig: GoodputRig, lossPercent: number): Promise<void> {
  pair.setLoss(0)
  for (const contender of contenders) {
    await rig.transfer(contender, warmUpCount, setup.size, deadlineMs)
  }
  pair.setLoss(lossPercent)
}

async function measure(pair: NetnsPair, rig: GoodputRig): Promise<LossRecords[]> {
  const records: LossRecords[] = lossRates.map((lossPercent) => ({
    lossPercent,
    ours: [],
    tcp: [],
  }))
  for (let round = 0; round < setup.rounds; round++) {
    // Rotate both the loss rates and the contenders, so that none always runs first.
    for (let k = 0; k < records.length; k++) {
      const record = records[(round + k) % records.length]!
      pair.setLoss(record.lossPercent)
      for (let c = 0; c < contenders.length; c++) {
        const contender = contenders[(round + k + c) % contenders.length]!
        // New workers (the first time, or after a missed deadline killed them) warm up first.
        if (rig.cold) await warmUp(pair, rig, record.lossPercent)
        const transfer = await rig.transfer(contender, setup.count, setup.size, deadlineMs)
        ;(contender === 'udp' ? record.ours : record.tcp).push(transfer)
        log(
          `round ${round + 1}/${setup.rounds}, ${record.lossPercent}% loss: ${describe(transfer)}`,
        )
      }
    }
  }
  return records
}

export default async function udpGoodputBench(): Promise<BenchResult[]> {
  const unavailable = netnsUnavailable()
  if (unavailable) {
    log(`skipped: ${unavailable}`)
    return []
  }
  let pair: NetnsPair
  try {
    pair = createNetnsPair()
  } catch (e) {
    log(`skipped: cannot create network namespaces (${String(e)})`)
    return []
  }
  const removeHandlers = cleanupOnExit(() => {
    killAllWorkersSync()
    pair.destroy()
  })
  const rig = new GoodputRig(pair)
  try {
    return goodputResults(await measure(pair, rig), setup)
  } finally {
    await rig.close()
    pair.destroy()
    removeHandlers()
  }
}
