/**
 * Clock synchronization accuracy, side by side in one run:
 * - our NTP client and `chronyd -Q` measuring the same server of ours, deliberately 250 ms ahead,
 *   on loopback, in alternating order: each one's error against the known 250 ms and its spread
 *   over the repeats (chrony is the baseline);
 * - our client's error on simulated exchanges against the theory's bound, half the round trip.
 * SD_TIMESYNC_REPEATS (default 15) and SD_TIMESYNC_SAMPLES (exchanges per estimate, default 4).
 */
import { queryNtp } from '@sd/timesync/udp'
import { cleanupOnExit } from './lib/exit-cleanup.js'
import { killAllWorkersSync, LineWorker, nodeArgs } from './lib/line-worker.js'
import { median, percentile } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'
import { chronyOffsetMs, chronyUnavailable } from './lib/timesync-chrony.js'
import { simulatedExchanges } from './lib/timesync-sim.js'

const OFFSET_MS = 250
const repeats = Number(process.env.SD_TIMESYNC_REPEATS ?? 15)
const samples = Number(process.env.SD_TIMESYNC_SAMPLES ?? 4)
const log = (line: string) => console.error(`  timesync: ${line}`)
const round = (x: number, digits = 4) => Number(x.toFixed(digits))

function stdev(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1))
}

function simulated(): BenchResult {
  const exchanges = simulatedExchanges(10_000, 'bench/timesync')
  const errors = exchanges.map((e) => e.errorMs)
  const ratios = exchanges.map((e) => e.errorMs / e.halfRoundTripMs)
  return {
    name: 'timesync.sim.client-error',
    unit: 'ms',
    value: round(median(errors)),
    baseline: {
      name: 'bound: half the round trip',
      value: round(median(exchanges.map((e) => e.halfRoundTripMs))),
    },
    lowerIsBetter: true,
    params: {
      exchanges: exchanges.length,
      delays: 'exponential, mean 0.5 ms out and 1.5 ms back, +0.05 ms',
    },
    extra: {
      p99ErrorMs: round(percentile(errors, 99)),
      maxErrorOverBound: round(Math.max(...ratios)),
      withinBound:
        exchanges.filter((e) => e.errorMs <= e.halfRoundTripMs + 1e-6).length / exchanges.length,
    },
  }
}

async function againstChrony(): Promise<BenchResult[]> {
  const unavailable = chronyUnavailable()
  if (unavailable) {
    log(`skipping the chrony comparison: ${unavailable}`)
    return []
  }
  type Ready = { type: 'ready'; port: number }
  const [command, ...args] = nodeArgs(
    new URL('./lib/ntp-server-worker.ts', import.meta.url).pathname,
  )
  const config = JSON.stringify({ port: 0, offsetMs: OFFSET_MS })
  const server = new LineWorker<never, Ready>(command!, [...args, config], 'ntp-server')
  const removeCleanup = cleanupOnExit(killAllWorkersSync)
  try {
    const ready = await server.waitFor((e) => e.type === 'ready', 20_000)
    if (!ready) throw new Error('our NTP server did not start')
    const ours: number[] = []
    const chrony: number[] = []
    for (let r = 0; r < repeats; r++) {
      // Alternate who goes first, so neither always meets a warmer server.
      const measureOurs = async () =>
        ours.push(
          (await queryNtp('127.0.0.1', { port: ready.port, samples, timeoutMs: 10_000 })).offsetMs,
        )
      const measureChrony = async () => chrony.push(await chronyOffsetMs(ready.port, samples))
      if (r % 2 === 0) {
        await measureOurs()
        await measureChrony()
      } else {
        await measureChrony()
        await measureOurs()
      }
      log(
        `repeat ${r + 1}/${repeats}: ours ${ours.at(-1)!.toFixed(3)} ms, chrony ${chrony.at(-1)!.toFixed(3)} ms`,
      )
    }
    const errors = (xs: number[]) => xs.map((x) => Math.abs(x - OFFSET_MS))
    const params = {
      serverOffsetMs: OFFSET_MS,
      repeats,
      samplesPerEstimate: samples,
      where: 'loopback',
    }
    const differences = ours.map((x, i) => x - chrony[i]!)
    const extra = {
      oursMs: ours.map((x) => round(x)),
      chronyMs: chrony.map((x) => round(x)),
      medianDifferenceMs: round(median(differences)),
      maxAbsDifferenceMs: round(Math.max(...differences.map(Math.abs))),
    }
    return [
      {
        name: 'timesync.ntp.offset-error',
        unit: 'ms',
        value: round(median(errors(ours))),
        baseline: { name: 'chronyd -Q', value: round(median(errors(chrony))) },
        lowerIsBetter: true,
        // Each repeat asked both, back to back: its errors pair.
        rounds: { value: errors(ours), baseline: errors(chrony) },
        params,
        extra,
      },
      {
        name: 'timesync.ntp.spread',
        unit: 'ms (stdev over repeats)',
        value: round(stdev(ours)),
        baseline: { name: 'chronyd -Q', value: round(stdev(chrony)) },
        lowerIsBetter: true,
        params,
      },
    ]
  } finally {
    await server.close()
    removeCleanup()
  }
}

export default async function timesync(): Promise<BenchResult[]> {
  const results = [simulated()]
  log(
    `simulated: median error ${results[0]!.value} ms, median bound ${results[0]!.baseline!.value} ms`,
  )
  results.push(...(await againstChrony()))
  return results
}
