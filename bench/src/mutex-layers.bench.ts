/**
 * Where the CPU of one uncontended acquire + release goes, layer by layer, in one process over
 * loopback (src/lib/layers-loops.ts): node:dgram carrying the lock's three messages as JSON, our
 * UDP transport carrying the same messages, the centralized lock on our transport (with the JSON
 * codec, and with `centralizedCodec`), and the lock in the simulator, its messages passed as they
 * are and copied through JSON. The loops take turns
 * within each round (the order reversed every other round), so load from other processes hits
 * them alike; each figure is CPU µs per operation, both ends together, and each ratio is paired
 * round by round. The mutex benchmark's processes add the
 * wake-ups between them on top of this.
 */
import { layers } from './lib/layers-loops.js'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const rounds = Number(process.env.SD_LAYERS_ROUNDS ?? 9)
const ops = Number(process.env.SD_LAYERS_OPS ?? 5000)

export default async function mutexLayersBench(): Promise<BenchResult[]> {
  const l = await layers()
  try {
    const loops = {
      dgram: l.dgram,
      transport: l.transport,
      lock: l.lock,
      lockCodec: l.lockCodec,
      sim: l.sim,
      simJson: l.simJson,
    }
    const names = Object.keys(loops) as (keyof typeof loops)[]
    const cpu: Record<keyof typeof loops, number[]> = {
      dgram: [],
      transport: [],
      lock: [],
      lockCodec: [],
      sim: [],
      simJson: [],
    }
    for (const name of names) await loops[name](ops) // warm-up: every path optimized first
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const before = process.cpuUsage()
        await loops[name](ops)
        const used = process.cpuUsage(before)
        cpu[name].push(Math.round(((used.user + used.system) / ops) * 10) / 10)
      }
    }
    const params = { rounds, opsPerRound: ops, messages: l.messages }
    const figure = (
      name: string,
      value: number[],
      baselineName: string,
      baseline: number[],
    ): BenchResult => ({
      name,
      unit: 'CPU µs/op',
      lowerIsBetter: true,
      value: median(value),
      baseline: { name: baselineName, value: median(baseline) },
      rounds: { value, baseline },
      params,
    })
    return [
      figure(
        'mutex.layers.transport',
        cpu.transport,
        "node:dgram + JSON, the lock's three messages",
        cpu.dgram,
      ),
      figure(
        'mutex.layers.lock',
        cpu.lock,
        'our UDP transport carrying its three messages alone',
        cpu.transport,
      ),
      figure(
        'mutex.layers.lock-codec',
        cpu.lockCodec,
        'the lock on our transport with the JSON codec',
        cpu.lock,
      ),
      {
        name: 'mutex.layers.sim',
        unit: 'CPU µs/op',
        lowerIsBetter: true,
        value: median(cpu.sim),
        params: { ...params, note: 'the protocol and its runtime, in the simulator: no socket' },
        extra: { samples: cpu.sim },
      },
      figure(
        'mutex.layers.sim-json',
        cpu.simJson,
        'the same, messages passed as they are',
        cpu.sim,
      ),
    ]
  } finally {
    await l.close()
  }
}
