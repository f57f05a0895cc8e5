/**
 * Measures one graph size, in a worker thread started by deadlock-graph-run.ts with a large stack:
 * graphology-components finds components by recursion, one call per node on the search path,
 * which overflows Node's default stack from about 10,000 processes on these graphs. Ours runs in
 * the same worker, so both see the same engine, heap limits and machine.
 */
import { getHeapStatistics } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import {
  buildGraphology,
  buildOurs,
  buildOursNumeric,
  deadlockedGraphology,
  sccGraphology,
} from './deadlock-graph-contenders.js'
import { acyclicWaits, randomWaits } from './deadlock-graph-edges.js'

export interface SizeRequest {
  n: number
  m: number
  samples: number
  seed: string
}

/** Per-sample figures, in sample order: ms for times, bytes for heaps. */
export interface SizeReport {
  n: number
  m: number
  build: { ours: number[]; oursNumeric: number[]; graphology: number[] }
  heap: { ours: number[]; oursNumeric: number[]; graphology: number[] }
  scc: { ours: number[]; graphology: number[] }
  deadlocked: { ours: number[]; graphology: number[] }
  findCycle: { ours: number[]; acyclic: number[] }
  /** What both computed, checked equal: a benchmark of wrong answers would be worthless. */
  answers: { components: number; cyclicComponents: number; deadlocked: number; cycleLength: number }
}

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc (pnpm bench does)')

function heapUsed(): number {
  gc!()
  gc!()
  return getHeapStatistics().used_heap_size
}

/** A sample lasts at least this long: fast operations repeat, and the time per call is kept. */
const MIN_SAMPLE_MS = 50

/** `fn` called until MIN_SAMPLE_MS have passed (at least once): its last value and ms per call. */
function time<T>(fn: () => T): [T, number] {
  let calls = 0
  let elapsed = 0
  let value: T
  do {
    const start = performance.now()
    value = fn()
    elapsed += performance.now() - start
    calls++
  } while (elapsed < MIN_SAMPLE_MS)
  return [value, elapsed / calls]
}

/**
 * Builds with `fn` between two full collections, for the heap the graph holds; builds again (timed,
 * not measured for heap) while the sample is shorter than MIN_SAMPLE_MS. The graph, ms per build,
 * bytes.
 */
function built<T>(fn: () => T): [T, number, number] {
  const before = heapUsed()
  const start = performance.now()
  const graph = fn()
  let elapsed = performance.now() - start
  const heap = heapUsed() - before
  let calls = 1
  while (elapsed < MIN_SAMPLE_MS) {
    const again = performance.now()
    fn()
    elapsed += performance.now() - again
    calls++
  }
  return [graph, elapsed / calls, heap]
}

function measure({ n, m, samples, seed }: SizeRequest): SizeReport {
  const edges = randomWaits(n, m, `${seed}/random`)
  const acyclic = buildOurs(acyclicWaits(n, m, `${seed}/acyclic`))
  const report: SizeReport = {
    n,
    m,
    build: { ours: [], oursNumeric: [], graphology: [] },
    heap: { ours: [], oursNumeric: [], graphology: [] },
    scc: { ours: [], graphology: [] },
    deadlocked: { ours: [], graphology: [] },
    findCycle: { ours: [], acyclic: [] },
    answers: { components: 0, cyclicComponents: 0, deadlocked: 0, cycleLength: 0 },
  }

  const runOurs = (record: boolean) => {
    const [numeric, numericMs, numericHeap] = built(() => buildOursNumeric(edges))
    if (numeric.size.waits !== m) throw new Error('numeric build lost waits')
    const [graph, ms, heap] = built(() => buildOurs(edges))
    const [components, sccMs] = time(() => graph.stronglyConnectedComponents())
    const [dead, deadMs] = time(() => graph.deadlockedProcesses())
    const [cycle, cycleMs] = time(() => graph.findCycle())
    const [none, acyclicMs] = time(() => acyclic.findCycle())
    if (none !== undefined) throw new Error('a cycle in the acyclic graph')
    if (cycle !== undefined)
      for (let i = 0; i < cycle.length; i++) {
        if (!graph.hasWait(cycle[i]!, cycle[(i + 1) % cycle.length]!))
          throw new Error('not a cycle')
      }
    report.answers = {
      components: components.length,
      cyclicComponents: components.filter((c) => c.length > 1).length,
      deadlocked: dead.length,
      cycleLength: cycle?.length ?? 0,
    }
    if (!record) return
    report.build.ours.push(ms)
    report.heap.ours.push(heap)
    report.build.oursNumeric.push(numericMs)
    report.heap.oursNumeric.push(numericHeap)
    report.scc.ours.push(sccMs)
    report.deadlocked.ours.push(deadMs)
    report.findCycle.ours.push(cycleMs)
    report.findCycle.acyclic.push(acyclicMs)
  }

  const runGraphology = (record: boolean) => {
    const [graph, ms, heap] = built(() => buildGraphology(edges))
    const [components, sccMs] = time(() => sccGraphology(graph))
    const [dead, deadMs] = time(() => deadlockedGraphology(graph))
    const cyclic = components.filter((c) => c.length > 1).length
    const ours = report.answers
    if (
      components.length !== ours.components ||
      cyclic !== ours.cyclicComponents ||
      dead.length !== ours.deadlocked
    ) {
      throw new Error(
        `graphology and ours disagree: ${components.length}/${cyclic}/${dead.length} components/cyclic/deadlocked against ${ours.components}/${ours.cyclicComponents}/${ours.deadlocked}`,
      )
    }
    if (!record) return
    report.build.graphology.push(ms)
    report.heap.graphology.push(heap)
    report.scc.graphology.push(sccMs)
    report.deadlocked.graphology.push(deadMs)
  }

  // One unrecorded round warms both up; then the order alternates so drift hits both alike.
  runOurs(false)
  runGraphology(false)
  for (let s = 0; s < samples; s++) {
    if (s % 2 === 0) {
      runOurs(true)
      runGraphology(true)
    } else {
      runGraphology(true)
      runOurs(true)
    }
  }
  return report
}

parentPort!.postMessage(measure(workerData as SizeRequest))
