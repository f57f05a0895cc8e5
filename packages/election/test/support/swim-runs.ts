/**
 * SWIM runs for the property tests: a seeded network of `n` members, faults planned, every
 * suspicion and death counted as true (of a crashed member) or false (of a live one).
 */
import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import type { SwimEvent } from '../../src/detector/swim/events.js'
import { swim } from '../../src/detector/swim/index.js'
import type { SwimOptions } from '../../src/detector/swim/options.js'

export interface SwimRun {
  net: SimNetwork
  ids: NodeId[]
  /** Every event, in order, with its node and time. */
  events: { node: NodeId; t: number; event: SwimEvent }[]
  /** When each crashed member crashed. */
  crashed: Map<NodeId, number>
  falseSuspicions: number
  falseDeaths: number
}

export interface SwimScenario {
  seed: number
  n: number
  options: SwimOptions
  loss?: number
  untilMs: number
  /** Crashes planned: member and time. */
  crashes?: { node: NodeId; at: number }[]
  /** Pauses (simulated GC): member, start and length. */
  pauses?: { node: NodeId; at: number; ms: number }[]
  /** Extra setup on the network after launch (slow links...). */
  setup?: (net: SimNetwork, ids: NodeId[]) => void
}

export function runSwim(s: SwimScenario): SwimRun {
  const ids: NodeId[] = Array.from({ length: s.n }, (_, i) => i + 1)
  const net = new SimNetwork({
    seed: s.seed,
    latency: { kind: 'uniform', min: 1, max: 5 },
    loss: s.loss ?? 0,
    trace: false,
  })
  const crashed = new Map<NodeId, number>()
  const run: SwimRun = { net, ids, events: [], crashed, falseSuspicions: 0, falseDeaths: 0 }
  net.launch(ids, swim(s.options), {
    onEmit: (node, event: SwimEvent, t) => {
      run.events.push({ node, t, event })
      // False: about a member that has not crashed (by the time it was said).
      if (event.type === 'suspect' && !crashed.has(event.node)) run.falseSuspicions++
      if (event.type === 'dead' && !crashed.has(event.node)) run.falseDeaths++
    },
  })
  s.setup?.(net, ids)
  for (const c of s.crashes ?? []) {
    net.at(c.at, () => {
      crashed.set(c.node, c.at)
      net.crash(c.node)
    })
  }
  for (const p of s.pauses ?? []) {
    net.at(p.at, () => net.pause(p.node))
    net.at(p.at + p.ms, () => net.resume(p.node))
  }
  net.run({ until: s.untilMs })
  return run
}

/** Pauses of 50..200 ms on random members, one every 300..1500 ms, from 1 s to `untilMs`. */
export function randomPauses(seed: number, n: number, untilMs: number) {
  const rnd = createRandom(`swim-pauses/${seed}`)
  const out: { node: NodeId; at: number; ms: number }[] = []
  for (let t = 1000; t < untilMs - 1000; t += rnd.int(300, 1500)) {
    out.push({ node: rnd.int(1, n), at: t, ms: rnd.int(50, 200) })
  }
  return out
}
