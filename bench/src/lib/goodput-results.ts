/** Turns the goodput benchmark's transfers into result figures, keeping every raw number. */
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Transfer } from './goodput-rig.js'
import { median } from './measure.js'
import type { BenchResult } from './result.js'

/** The transfers at one loss rate; index i of `ours` and `tcp` ran in the same round. */
export interface LossRecords {
  lossPercent: number
  ours: Transfer[]
  tcp: Transfer[]
}

export interface GoodputSetup {
  count: number
  size: number
  rounds: number
  deadlineS: number
}

// What the figures promise: our goodput under 1% loss keeps at least this share of the lossless one.
const lossTolerableTarget = 0.5

const round0 = Math.round
const round3 = (x: number) => Math.round(x * 1000) / 1000
const lossLabel = (percent: number) => `loss${String(percent).replace('.', '_')}`

/** Median of the ratios of paired samples, skipping pairs whose denominator is 0. */
function pairedRatio(numerators: number[], denominators: number[]): number | undefined {
  const ratios = numerators.flatMap((n, i) => (denominators[i]! > 0 ? [n / denominators[i]!] : []))
  return ratios.length > 0 ? round3(median(ratios)) : undefined
}

function measuredLossPercent(transfers: Transfer[]): number {
  const seen = transfers.reduce((sum, t) => sum + t.packets.seen, 0)
  const dropped = transfers.reduce((sum, t) => sum + t.packets.dropped, 0)
  return seen > 0 ? Math.round((dropped / seen) * 10000) / 100 : 0
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** Which build of the UDP transport ran, relative to the repository when inside it. */
function udpBuild(records: LossRecords[]): string | undefined {
  const url = records.flatMap((r) => r.ours).find((t) => t.receiver?.module)?.receiver?.module
  if (!url) return undefined
  const path = fileURLToPath(url)
  const inside = relative(repoRoot, path)
  return inside.startsWith('..') ? path : inside
}

const goodputs = (transfers: Transfer[]) => transfers.map((t) => t.goodput)

/** One transfer, compactly, for the JSON file. */
function detail(t: Transfer) {
  const stats = (t.sender?.stats ?? {}) as Record<string, number>
  return {
    goodput: round0(t.goodput),
    receiverGoodput: round0(t.receiverGoodput),
    delivered: t.delivered,
    complete: t.complete,
    elapsedMs: round0(t.elapsedMs),
    packetsSeen: t.packets.seen,
    packetsDropped: t.packets.dropped,
    backpressureWaits: t.sender?.backpressureWaits,
    ...(stats.datagramsSent === undefined
      ? {}
      : { datagramsSent: stats.datagramsSent, retransmissions: stats.retransmissions }),
    ...(t.receiver?.outOfOrder ? { outOfOrder: t.receiver.outOfOrder } : {}),
    ...(t.errors.length > 0 ? { errors: t.errors } : {}),
  }
}

export function goodputResults(records: LossRecords[], setup: GoodputSetup): BenchResult[] {
  const lossless = records.find((r) => r.lossPercent === 0)
  const build = udpBuild(records)
  const results = records.map((r): BenchResult => {
    const ours = goodputs(r.ours)
    const tcp = goodputs(r.tcp)
    const vsLossless = lossless &&
      r !== lossless && {
        ours: pairedRatio(ours, goodputs(lossless.ours)),
        tcp: pairedRatio(tcp, goodputs(lossless.tcp)),
      }
    return {
      name: `udp.goodput.${lossLabel(r.lossPercent)}`,
      unit: 'msg/s',
      value: round0(median(ours)),
      baseline: { name: 'tcp (node:net)', value: round0(median(tcp)) },
      // Paired round by round: load on the shared machine drifts between rounds, not within a pair.
      ratio: pairedRatio(ours, tcp),
      rounds: { value: ours, baseline: tcp },
      params: {
        lossPercent: r.lossPercent,
        count: setup.count,
        messageBytes: setup.size,
        rounds: setup.rounds,
        deadlineS: setup.deadlineS,
        measuredLossPercent: { ours: measuredLossPercent(r.ours), tcp: measuredLossPercent(r.tcp) },
        ...(vsLossless ? { vsLossless } : {}),
        samples: { ours: ours.map(round0), tcp: tcp.map(round0) },
        complete: {
          ours: r.ours.filter((t) => t.complete).length,
          tcp: r.tcp.filter((t) => t.complete).length,
        },
        setup:
          'sender and receiver in separate processes and network namespaces joined by a veth pair; ' +
          'nftables drops lossPercent% of incoming packets in both namespaces (data and acknowledgements)',
        ours: 'createUdpTransport with default options (reliable, no key), one message per send',
        udpBuild: build,
        baseline: 'node:net, u32 length prefix + the same JSON message, write() until drain',
        timing:
          "first send (sender; TCP: connect) to last in-order delivery (receiver), both on the machine's monotonic clock; " +
          'a transfer past the deadline counts what it delivered by then',
      },
      extra: {
        receiverGoodput: {
          ours: round0(median(r.ours.map((t) => t.receiverGoodput))),
          tcp: round0(median(r.tcp.map((t) => t.receiverGoodput))),
        },
        perRound: r.ours.map((t, i) => ({ ours: detail(t), tcp: detail(r.tcp[i]!) })),
      },
    }
  })
  const light = records.find((r) => r.lossPercent === 1)
  if (lossless && light) {
    const ours = pairedRatio(goodputs(light.ours), goodputs(lossless.ours)) ?? 0
    const tcp = pairedRatio(goodputs(light.tcp), goodputs(lossless.tcp)) ?? 0
    results.push({
      name: 'udp.goodput.loss1-vs-lossless',
      unit: 'ratio',
      value: ours,
      baseline: { name: 'tcp (node:net), 1% loss vs lossless', value: tcp },
      params: {
        target: lossTolerableTarget,
        meetsTarget: ours >= lossTolerableTarget,
        how: 'median over rounds of (goodput at 1% loss / goodput at 0% loss), same round',
        count: setup.count,
        messageBytes: setup.size,
        rounds: setup.rounds,
      },
    })
  }
  return results
}
