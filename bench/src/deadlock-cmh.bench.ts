/**
 * Chandy-Misra-Haas in the simulator at scale: 10,000 processes, one simulated node each, a
 * random wait-for graph of 30,000 waits that contains one cycle through every process; one
 * process initiates. Reported: the probes sent against the bound (the waits reachable from the
 * initiator), whether the deadlock was found, and the wall time of the whole detection (launch
 * included), median of the runs. The same graph without the closing wait is also run: no probe
 * comes back and nothing is declared. SD_CMH_PROCESSES, SD_CMH_RUNS.
 */
import { cmhOnGraph } from '@sd/deadlock'
import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const N = Number(process.env.SD_CMH_PROCESSES ?? 10_000)
const RUNS = Number(process.env.SD_CMH_RUNS ?? 5)
const log = (line: string) => console.error(`  deadlock-cmh: ${line}`)

/** A cycle 1 -> 2 -> ... -> n -> 1 (optionally without n -> 1) plus 2n random waits forward. */
function graphOf(n: number, closed: boolean): Map<NodeId, NodeId[]> {
  const random = createRandom('bench/cmh').next
  const waits = new Map<NodeId, NodeId[]>()
  for (let i = 1; i <= n; i++) waits.set(i, i < n ? [i + 1] : closed ? [1] : [])
  // Extra waits only go forward (i -> j > i): without n -> 1 the graph stays acyclic.
  for (let k = 0; k < 2 * n; k++) {
    const i = 1 + Math.floor(random() * (n - 1))
    const j = i + 1 + Math.floor(random() * (n - i))
    if (!waits.get(i)!.includes(j)) waits.get(i)!.push(j)
  }
  return waits
}

function reachableWaits(waits: Map<NodeId, NodeId[]>, from: NodeId): number {
  const seen = new Set<NodeId>([from])
  const stack = [from]
  let count = 0
  while (stack.length > 0) {
    for (const next of waits.get(stack.pop()!)!) {
      count++
      if (!seen.has(next)) {
        seen.add(next)
        stack.push(next)
      }
    }
  }
  return count
}

function detect(waits: Map<NodeId, NodeId[]>) {
  const started = performance.now()
  const net = new SimNetwork({
    seed: 1,
    trace: false,
    latency: { kind: 'uniform', min: 1, max: 5 },
  })
  let declared = 0
  net.onEmit(() => declared++)
  const group = net.launch([...waits.keys()], cmhOnGraph({ waitsFor: waits, recordPath: false }))
  group.request(1, { type: 'initiate' })
  net.run()
  return { ms: performance.now() - started, sent: net.stats.sent, declared }
}

export default async function deadlockCmh(): Promise<BenchResult[]> {
  const results: BenchResult[] = []
  for (const closed of [true, false]) {
    const waits = graphOf(N, closed)
    const edges = [...waits.values()].reduce((a, w) => a + w.length, 0)
    const bound = reachableWaits(waits, 1)
    detect(waits) // warm-up
    const runs = Array.from({ length: RUNS }, () => detect(waits))
    const name = closed ? 'deadlock' : 'no-deadlock'
    log(
      `${name}: ${runs[0]!.sent} probes (bound ${bound}), declared ${runs[0]!.declared}, median ${median(runs.map((r) => r.ms)).toFixed(0)} ms`,
    )
    results.push({
      name: `deadlock.cmh.10k.${name}`,
      unit: 'ms',
      value: Math.round(median(runs.map((r) => r.ms))),
      lowerIsBetter: true,
      params: { processes: N, waits: edges, runs: RUNS, initiator: 1, latency: 'uniform 1..5 ms' },
      extra: {
        probes: runs[0]!.sent,
        boundReachableWaits: bound,
        declared: runs[0]!.declared,
        allRunsMs: runs.map((r) => Math.round(r.ms)),
      },
    })
  }
  return results
}
