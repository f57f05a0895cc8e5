/**
 * UDP adapter vs bare node:dgram, ping-pong on loopback (one message in flight), side by side:
 * samples of each contender are interleaved so machine noise hits all alike.
 *
 * SD_PINGPONG_BEFORE_MODULE: path to another build's `udp.js` (e.g. an older commit's dist): its
 * reliable and reliable + authenticated modes join the same rounds as `udp.pingpong.before-*`,
 * for before/after figures measured side by side.
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { createUdpTransport, type UdpTransport } from '@sd/transport/udp'
import { median, percentile } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'
import { type PingPongRun, rawPingPong, transportPingPong } from './lib/udp-pingpong.js'

// Many short interleaved samples: load from other processes drifts, and hits all contenders alike.
const sampleMs = 500
const rounds = 9
const warmUpMs = 600
const message = { type: 'ping', n: 12345, from: 'a' }
const messageBytes = Buffer.byteLength(JSON.stringify(message))

type Create = typeof createUdpTransport

interface Mode {
  name: string
  reliable: boolean
  key?: Buffer
  hmacEngine?: 'js' | 'node-crypto'
  coalesce?: boolean
  /** Another build's `createUdpTransport` (SD_PINGPONG_BEFORE_MODULE); this one by default. */
  create?: Create
}
const key = randomBytes(32)
const modes: Mode[] = [
  { name: 'unreliable', reliable: false },
  { name: 'reliable', reliable: true },
  // With a key, as the transport comes (keyed BLAKE2s, `mac: 'blake2s'`).
  { name: 'reliable-auth', reliable: true, key },
  // HMAC-SHA256, the MAC before BLAKE2s became the default, on the JS engine.
  { name: 'reliable-auth-hmac', reliable: true, key, hmacEngine: 'js' },
  // The same with node:crypto computing the HMAC, to show what the JS engine saves.
  { name: 'reliable-auth-node-crypto', reliable: true, key, hmacEngine: 'node-crypto' },
  // Each answer waits for the end of its turn (`coalesce`): what that costs a ping-pong.
  { name: 'reliable-coalesce', reliable: true, coalesce: true },
]
const beforeModule = process.env.SD_PINGPONG_BEFORE_MODULE
if (beforeModule !== undefined) {
  const before = (await import(pathToFileURL(beforeModule).href)) as { createUdpTransport: Create }
  modes.push(
    { name: 'before-reliable', reliable: true, create: before.createUdpTransport },
    { name: 'before-reliable-auth', reliable: true, key, create: before.createUdpTransport },
  )
}
/** Authenticated modes, and the mode without a key that their added time is measured against. */
const authOver: Record<string, string> = {
  'reliable-auth': 'reliable',
  'reliable-auth-hmac': 'reliable',
  'reliable-auth-node-crypto': 'reliable',
  'before-reliable-auth': 'before-reliable',
}

async function pair(mode: Mode): Promise<[UdpTransport, UdpTransport]> {
  const create = mode.create ?? createUdpTransport
  const options = {
    reliable: mode.reliable,
    key: mode.key,
    hmacEngine: mode.hmacEngine,
    // Only when set: another build's createUdpTransport may not know the option.
    ...(mode.coalesce ? { coalesce: true } : {}),
  }
  const a = await create({ id: 'a', ...options })
  const b = await create({ id: 'b', ...options })
  a.setPeer('b', { host: '127.0.0.1', port: b.address.port })
  b.setPeer('a', { host: '127.0.0.1', port: a.address.port })
  return [a, b]
}

const rate = (run: PingPongRun) => (run.roundTrips * 1000) / run.elapsedMs
/** CPU microseconds of this process per round trip (both ends run in it). */
const cpuUs = (run: PingPongRun) => (run.cpuMs * 1000) / Math.max(1, run.roundTrips)

export default async function udpBench(): Promise<BenchResult[]> {
  const pairs = await Promise.all(modes.map(pair))
  const rawRates: number[] = []
  const rawCpuUs: number[] = []
  const rawLatencies: number[] = []
  const bytesRates: number[] = []
  const rates = modes.map(() => [] as number[])
  const latencies = modes.map(() => [] as number[])
  const cpu = modes.map(() => [] as number[])
  // Warm-up: JIT and the handshakes.
  await rawPingPong(warmUpMs, message, 'json')
  await rawPingPong(warmUpMs, message, 'bytes')
  for (const [a, b] of pairs) await transportPingPong(a, b, warmUpMs, message)
  // Each round runs every contender once, starting from a different one each time, so that no
  // contender always runs right after the baseline or last (drift over a round hits all alike).
  const contenders = [
    async () => {
      const raw = await rawPingPong(sampleMs, message, 'json')
      rawRates.push(rate(raw))
      rawCpuUs.push(cpuUs(raw))
      rawLatencies.push(...raw.latenciesUs)
      bytesRates.push(rate(await rawPingPong(sampleMs / 2, message, 'bytes')))
    },
    ...pairs.map(([a, b], i) => async () => {
      const run = await transportPingPong(a, b, sampleMs, message)
      rates[i]!.push(rate(run))
      cpu[i]!.push(cpuUs(run))
      latencies[i]!.push(...run.latenciesUs)
    }),
  ]
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) await contenders[(round + k) % contenders.length]!()
  }
  const stats = pairs.map(([a, b]) => ({ a: a.stats, b: b.stats }))
  await Promise.all(pairs.flat().map((t) => t.close()))

  const baseline = { name: 'raw node:dgram', value: median(rawRates) }
  const latency = (values: number[]) => ({
    p50Us: Math.round(percentile(values, 50) * 10) / 10,
    p99Us: Math.round(percentile(values, 99) * 10) / 10,
  })
  const rawLatency = latency(rawLatencies)
  // Where the time goes: microseconds each layer adds to one round trip (two messages).
  const usPerRoundTrip = (rate: number) => 1e6 / rate
  const rawUs = usPerRoundTrip(baseline.value)
  const modeUs = rates.map((r) => usPerRoundTrip(median(r)))
  const round1 = (x: number) => Math.round(x * 10) / 10
  const round2 = (x: number) => Math.round(x * 100) / 100
  // What authentication costs per datagram, in place: each round trip is two datagrams, each
  // signed once and verified once (plus the replay window). Paired round by round with the same
  // mode without a key, halved, then the median: in wall-clock and in CPU microseconds.
  const authCost = (name: string, i: number) => {
    const over = authOver[name]
    const j = modes.findIndex((m) => m.name === over)
    if (over === undefined || j < 0) return {}
    const pairedHalf = (xs: number[], ys: number[]) =>
      round2(median(xs.map((x, round) => (x - ys[round]!) / 2)))
    return {
      authMeasuredOver: over,
      authUsPerDatagram: pairedHalf(rates[i]!.map(usPerRoundTrip), rates[j]!.map(usPerRoundTrip)),
      authCpuUsPerDatagram: pairedHalf(cpu[i]!, cpu[j]!),
    }
  }
  // What waiting for the end of the turn costs a ping-pong (`coalesce`), paired round by round
  // with the reliable mode: there is nothing else in the turn to join the answer.
  const coalesceCost = (name: string, i: number) => {
    const j = modes.findIndex((m) => m.name === 'reliable')
    if (name !== 'reliable-coalesce' || j < 0) return {}
    const paired = (xs: number[], ys: number[]) =>
      round2(median(xs.map((x, round) => x - ys[round]!)))
    return {
      coalesceMeasuredOver: 'reliable',
      coalesceUsPerRoundTrip: paired(rates[i]!.map(usPerRoundTrip), rates[j]!.map(usPerRoundTrip)),
      coalesceCpuUsPerRoundTrip: paired(cpu[i]!, cpu[j]!),
    }
  }
  return modes.map((mode, i) => {
    const s = stats[i]!
    const pairedRatio = median(rates[i]!.map((r, round) => r / rawRates[round]!))
    return {
      name: `udp.pingpong.${mode.name}`,
      unit: 'msgs/s',
      value: median(rates[i]!),
      baseline,
      // The median of per-round ratios: robust to the machine's load drifting between rounds.
      ratio: Math.round(pairedRatio * 1000) / 1000,
      rounds: { value: rates[i]!, baseline: rawRates },
      params: {
        mode: mode.name,
        inFlight: 1,
        messageBytes,
        baseline:
          'two bare node:dgram sockets exchanging the same JSON message (JSON.parse on receipt, JSON.stringify to send)',
        sampleMs,
        samples: rounds,
        transport: 'loopback 127.0.0.1, both ends in one process',
      },
      extra: {
        ...latency(latencies[i]!),
        baselineP50Us: rawLatency.p50Us,
        baselineP99Us: rawLatency.p99Us,
        samples: rates[i]!.map(Math.round),
        baselineSamples: rawRates.map(Math.round),
        ratioOfMedians: Math.round((median(rates[i]!) / baseline.value) * 1000) / 1000,
        // The floor: the same ping-pong echoing bytes untouched (no message handling at all).
        rawBytesEchoMsgsPerS: Math.round(median(bytesRates)),
        ratioVsRawBytesEcho: Math.round((median(rates[i]!) / median(bytesRates)) * 1000) / 1000,
        datagramsPerRoundTrip:
          Math.round(
            ((s.a.datagramsSent + s.b.datagramsSent) / Math.max(1, s.a.messagesDelivered)) * 100,
          ) / 100,
        retransmissions: s.a.retransmissions + s.b.retransmissions,
        standaloneAcks: s.a.acksSent + s.b.acksSent,
        usPerRoundTrip: round1(modeUs[i]!),
        baselineUsPerRoundTrip: round1(rawUs),
        overheadUsPerRoundTrip: round1(modeUs[i]! - rawUs),
        // Against the previous mode: unreliable vs raw = codec, header, dispatch; reliable vs
        // unreliable = sequence numbers, acks, timers; reliable-auth vs reliable = the MAC (keyed
        // BLAKE2s) and replay window; reliable-auth-hmac vs reliable-auth = HMAC-SHA256 instead;
        // reliable-auth-node-crypto vs reliable-auth-hmac = node:crypto's HMAC instead of the JS one;
        // reliable-coalesce: see coalesceUsPerRoundTrip instead (measured over reliable).
        addedUsVsPreviousMode: round1(modeUs[i]! - (i === 0 ? rawUs : modeUs[i - 1]!)),
        addedUsVsRaw: round1(modeUs[i]! - rawUs),
        // The same in CPU time (user + system of this process): steadier than the wall clock when
        // other processes share the cores. Ratio = raw's CPU per round trip / this mode's, paired per round.
        cpuUsPerRoundTrip: round1(median(cpu[i]!)),
        baselineCpuUsPerRoundTrip: round1(median(rawCpuUs)),
        cpuRatio: Math.round(median(cpu[i]!.map((c, round) => rawCpuUs[round]! / c)) * 1000) / 1000,
        ...authCost(mode.name, i),
        ...coalesceCost(mode.name, i),
      },
    }
  })
}
