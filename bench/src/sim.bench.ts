import { EventEmitter } from 'node:events'
import { type Ctx, type NodeId, SimNetwork } from '@sd/transport'
import { bytesPerOperation } from './lib/allocation.js'
import { bareAllToAll } from './lib/bare-all-to-all.js'
import { compareRates, median, opsPerSecond } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

type Ball = { type: 'ball'; left: number }

/** Two nodes bounce a ball `hits` times. */
function pingPong(hits: number) {
  return (self: NodeId) => ({
    start(ctx: Ctx<Ball>) {
      if (self === 1) ctx.send(2, { type: 'ball', left: hits })
    },
    onMessage(from: NodeId, msg: Ball, ctx: Ctx<Ball>) {
      if (msg.left > 1) ctx.send(from, { type: 'ball', left: msg.left - 1 })
    },
  })
}

/** Every node sends to every other node, `rounds` times; a round ends when all n-1 arrived. */
function allToAll(rounds: number) {
  return () => {
    let round = 0
    let got = 0
    return {
      start(ctx: Ctx<number>) {
        ctx.broadcast(0)
      },
      onMessage(_from: NodeId, _msg: number, ctx: Ctx<number>) {
        if (++got === ctx.peers.length) {
          got = 0
          if (++round < rounds) ctx.broadcast(round)
        }
      },
    }
  }
}

/** The baseline: what one writes by hand without a simulator, an EventEmitter pair and a microtask per message. */
async function emitterPingPong(hits: number): Promise<number> {
  const a = new EventEmitter()
  const b = new EventEmitter()
  const start = performance.now()
  await new Promise<void>((done) => {
    a.on('ball', (left: number) =>
      left > 1 ? queueMicrotask(() => b.emit('ball', left - 1)) : done(),
    )
    b.on('ball', (left: number) =>
      left > 1 ? queueMicrotask(() => a.emit('ball', left - 1)) : done(),
    )
    queueMicrotask(() => b.emit('ball', hits))
  })
  return (hits * 1000) / (performance.now() - start)
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run the benchmarks with node --expose-gc')
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

export default async function simBench(): Promise<BenchResult[]> {
  const hits = 200_000
  const sim = () => {
    const net = new SimNetwork({ seed: 1, trace: false })
    net.launch([1, 2], pingPong(hits))
    net.run()
    return net.stats.delivered
  }
  // Interleave the two contenders so machine noise hits both alike.
  const simRates: number[] = []
  const baseRates: number[] = []
  for (let i = 0; i < 7; i++) {
    simRates.push(opsPerSecond(sim, { samples: 1, minSampleMs: 300 }).median)
    baseRates.push(await emitterPingPong(hits))
  }

  const n = 100
  const rounds = 10
  const simWide = () => {
    const net = new SimNetwork({
      seed: 1,
      trace: false,
      latency: { kind: 'uniform', min: 1, max: 5 },
    })
    net.launch(
      Array.from({ length: n }, (_, i) => i),
      allToAll(rounds),
    )
    net.run()
    return net.stats.delivered
  }
  // Paired with the same exchange written by hand (no simulator), interleaved sample by sample:
  // the ratio says how near the simulator is to the limit on this machine, whatever its speed.
  const wide = compareRates(simWide, () => bareAllToAll(n, rounds), {
    samples: 7,
    minSampleMs: 300,
  })

  // What a delivery allocates (the collector's work to come): unlike the rates, the same on a busy
  // machine. The hand loop of all-to-all allocates its plain events only; ping-pong's protocol
  // makes one message (40 B) per delivery itself.
  const allocation = {
    pingPong: await bytesPerOperation(sim),
    allToAll: await bytesPerOperation(simWide),
    bareAllToAll: await bytesPerOperation(() => bareAllToAll(n, rounds)),
  }

  const inFlight = 1_000_000
  const memory = (trace: boolean) => {
    const before = heapAfterGc()
    const net = new SimNetwork({ seed: 1, trace, latency: 1000 })
    const tx = net.addNode('a')
    net.addNode('b')
    for (let i = 0; i < inFlight; i++) tx.send('b', { type: 'm', i })
    const used = heapAfterGc() - before
    if (net.pending !== inFlight) throw new Error('messages left the queue early')
    return used / 2 ** 20
  }
  const memoryNoTrace = median([memory(false), memory(false), memory(false)])
  const memoryTrace = memory(true)

  return [
    {
      name: 'sim.pingpong.deliveries',
      unit: 'deliveries/s',
      value: median(simRates),
      baseline: {
        name: 'EventEmitter + queueMicrotask ping-pong (no simulator)',
        value: median(baseRates),
      },
      params: { nodes: 2, hits, trace: false, target: 1_000_000 },
      rounds: { value: simRates, baseline: baseRates },
      extra: { samples: simRates, baselineSamples: baseRates },
    },
    {
      name: 'sim.all-to-all.n100.deliveries',
      unit: 'deliveries/s',
      value: wide.a,
      baseline: {
        name: 'the same exchange by hand: a binary heap of plain objects, no simulator (lib/bare-all-to-all.ts)',
        value: wide.b,
      },
      params: { nodes: n, rounds, deliveriesPerRun: n * (n - 1) * rounds, trace: false },
      rounds: { value: wide.aSamples, baseline: wide.bSamples },
      extra: {
        samples: wide.aSamples,
        // By CPU time over the same samples: what a delivery costs, whatever else the machine runs.
        cpuMedian: wide.aCpu,
        cpuSamples: wide.aCpuSamples,
        baselineCpuMedian: wide.bCpu,
        baselineCpuSamples: wide.bCpuSamples,
      },
    },
    {
      name: 'sim.allocation.pingpong',
      unit: 'B/delivery',
      value: allocation.pingPong,
      lowerIsBetter: true,
      params: { nodes: 2, hits, trace: false },
    },
    {
      name: 'sim.allocation.all-to-all.n100',
      unit: 'B/delivery',
      value: allocation.allToAll,
      lowerIsBetter: true,
      baseline: {
        name: 'the same exchange by hand (lib/bare-all-to-all.ts)',
        value: allocation.bareAllToAll,
      },
      params: { nodes: n, rounds, trace: false },
    },
    {
      name: 'sim.memory.1m-in-flight',
      unit: 'MiB heap',
      value: memoryNoTrace,
      lowerIsBetter: true,
      params: { messagesInFlight: inFlight, trace: false, target: 300 },
      extra: { withTraceMiB: memoryTrace },
    },
  ]
}
