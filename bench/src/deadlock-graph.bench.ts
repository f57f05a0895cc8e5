/**
 * @sd/deadlock's wait-for graph against graphology + graphology-components on seeded random
 * wait-for graphs of 1,000 / 10,000 / 100,000 processes with 10 waits each: building the graph,
 * strongly connected components, the deadlocked set and one witness cycle (ms, median of
 * interleaved samples after a warm-up round), and the heap a built graph holds. Each size runs in
 * its own worker thread with a large stack (graphology's components search recurses; see
 * lib/deadlock-graph-worker.ts); whether it completes on the default stack is recorded too.
 */
import { graphologyName, graphologyOnDefaultStack } from './lib/deadlock-graph-contenders.js'
import { randomWaits } from './lib/deadlock-graph-edges.js'
import { measureSize } from './lib/deadlock-graph-run.js'
import type { SizeReport } from './lib/deadlock-graph-worker.js'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const SIZES = [
  { label: '10k', n: 1_000, m: 10_000, samples: 15 },
  { label: '100k', n: 10_000, m: 100_000, samples: 9 },
  { label: '1m', n: 100_000, m: 1_000_000, samples: 5 },
]
const SEED = 'deadlock-graph'
const DEADLOCKED_BASELINE = `${graphologyName}: components, then breadth-first over in-neighbours`

const round = (x: number, digits = 3) => Number(x.toPrecision(digits))

/** baseline / ours per sample pair (they ran interleaved), then the median: how many times faster. */
function pairedRatio(ours: number[], baseline: number[]): number {
  return round(median(ours.map((o, i) => baseline[i]! / o)))
}

function timed(
  name: string,
  report: SizeReport,
  ours: number[],
  baseline: { name: string; samples: number[] } | undefined,
  extra: Record<string, unknown> = {},
): BenchResult {
  const value = median(ours)
  return {
    name,
    unit: 'ms',
    value: round(value, 4),
    lowerIsBetter: true,
    ...(baseline && {
      baseline: { name: baseline.name, value: round(median(baseline.samples), 4) },
      ratio: pairedRatio(ours, baseline.samples),
      rounds: { value: ours, baseline: baseline.samples },
    }),
    params: { processes: report.n, waits: report.m, samples: ours.length, seed: SEED },
    extra: {
      nsPerWait: round((value * 1e6) / report.m),
      ...(baseline && { baselineNsPerWait: round((median(baseline.samples) * 1e6) / report.m) }),
      samples: ours.map((x) => round(x, 4)),
      ...(baseline && { baselineSamples: baseline.samples.map((x) => round(x, 4)) }),
      ...extra,
    },
  }
}

function figures(label: string, r: SizeReport, defaultStack: string): BenchResult[] {
  const gl = (samples: number[]) => ({ name: graphologyName, samples })
  const mb = (bytes: number[]) => round(median(bytes) / 1e6, 4)
  return [
    timed(`deadlock.graph.build.${label}`, r, r.build.ours, gl(r.build.graphology), {
      what: 'an empty graph, then addWait / mergeEdge for every wait (string ids p0, p1...)',
      oursNumericIdsMs: round(median(r.build.oursNumeric), 4),
    }),
    {
      name: `deadlock.graph.heap.${label}`,
      unit: 'MB',
      value: mb(r.heap.ours),
      lowerIsBetter: true,
      baseline: { name: graphologyName, value: mb(r.heap.graphology) },
      rounds: { value: r.heap.ours, baseline: r.heap.graphology },
      params: { processes: r.n, waits: r.m, samples: r.heap.ours.length, seed: SEED },
      extra: {
        what: 'V8 heap used after building, minus before (both after full collections)',
        bytesPerWait: round(median(r.heap.ours) / r.m),
        baselineBytesPerWait: round(median(r.heap.graphology) / r.m),
        oursNumericIdsMB: mb(r.heap.oursNumeric),
      },
    },
    timed(`deadlock.graph.scc.${label}`, r, r.scc.ours, gl(r.scc.graphology), {
      what: 'all strongly connected components as id lists (ours: CSR snapshot + iterative Tarjan)',
      components: r.answers.components,
      cyclicComponents: r.answers.cyclicComponents,
      baselineOnDefaultStack: defaultStack,
    }),
    timed(
      `deadlock.graph.deadlocked.${label}`,
      r,
      r.deadlocked.ours,
      { name: DEADLOCKED_BASELINE, samples: r.deadlocked.graphology },
      { deadlocked: r.answers.deadlocked },
    ),
    timed(`deadlock.graph.find-cycle.${label}`, r, r.findCycle.ours, undefined, {
      what: 'one witness cycle; graphology has no such function',
      cycleLength: r.answers.cycleLength,
    }),
    timed(`deadlock.graph.find-cycle-acyclic.${label}`, r, r.findCycle.acyclic, undefined, {
      what: 'findCycle on a random acyclic graph of the same size: the whole graph is searched',
    }),
  ]
}

/** ns per wait at the largest size over ns per wait at the smallest: 1 would be exactly linear. */
function growth(name: string, small: BenchResult, large: BenchResult): BenchResult {
  const per = (r: BenchResult) => r.extra!.nsPerWait as number
  return {
    name,
    unit: 'x',
    value: round(per(large) / per(small)),
    lowerIsBetter: true,
    params: { from: small.params, to: large.params },
    extra: { nsPerWaitSmall: per(small), nsPerWaitLarge: per(large) },
  }
}

export default async function deadlockGraphBench(): Promise<BenchResult[]> {
  // SD_GRAPH_SIZES=10k,100k runs only those; SD_GRAPH_SAMPLES overrides the sample counts.
  const only = process.env.SD_GRAPH_SIZES?.split(',')
  const samples = Number(process.env.SD_GRAPH_SAMPLES ?? 0)
  const results: BenchResult[] = []
  const bySize = new Map<string, BenchResult[]>()
  for (const size of SIZES) {
    if (only && !only.includes(size.label)) continue
    console.error(`  ${size.n} processes, ${size.m} waits...`)
    const report = await measureSize({
      n: size.n,
      m: size.m,
      samples: samples > 0 ? samples : size.samples,
      seed: SEED,
    })
    // The same graph's components by graphology on this (main) thread's default stack.
    const defaultStack = graphologyOnDefaultStack(randomWaits(size.n, size.m, `${SEED}/random`))
    const list = figures(size.label, report, defaultStack)
    bySize.set(size.label, list)
    results.push(...list)
  }
  const first = bySize.get('10k')
  const last = bySize.get('1m')
  if (first && last) {
    for (const op of ['build', 'scc', 'deadlocked', 'find-cycle-acyclic']) {
      const pick = (list: BenchResult[]) => list.find((r) => r.name.includes(`.${op}.`))!
      results.push(growth(`deadlock.graph.${op}.growth`, pick(first), pick(last)))
    }
  }
  return results
}
