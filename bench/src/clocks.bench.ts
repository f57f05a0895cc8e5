/**
 * @sd/clocks against vectorclock@0.0.0 and @thi.ng/vclock: increment, merge, compare and
 * merge + compare at n = 4, 16, 128 (ops/s), and the encoded size of a clock (bytes).
 * Merge means "the component-wise max of a and b into a result": the baselines allocate a new
 * object (their API), ours copies a into a reused clock and merges b in place (our API).
 */
import {
  clockToJSON,
  compareDense,
  DenseVectorClock,
  encodeClock,
  SparseVectorClock,
} from '@sd/clocks'
import * as thing from '@thi.ng/vclock'
import { compareMany, thingName, vectorclock, vectorclockName } from './lib/clock-baselines.js'
import type { BenchResult } from './lib/result.js'

const SIZES = [4, 16, 128] as const
const POOL = 64
const BATCH = 256
const RATE = { samples: 5, minSampleMs: 60 }

/** Deterministic pseudo-random numbers, so every run measures the same clocks. */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 4294967296
  }
}

interface Pools {
  ids: string[]
  dense: [DenseVectorClock, DenseVectorClock][]
  sparse: [SparseVectorClock, SparseVectorClock][]
  objects: [Record<string, number>, Record<string, number>][]
}

/** Pairs of clocks: half of them ordered (b after a, so compare scans every entry), half concurrent. */
function makePools(n: number): Pools {
  const rand = lcg(n * 7919)
  const ids = Array.from({ length: n }, (_, i) => `n${i}`)
  const pools: Pools = { ids, dense: [], sparse: [], objects: [] }
  for (let p = 0; p < POOL; p++) {
    const a = ids.map(() => Math.floor(rand() * 1000) + 1)
    const b = [...a]
    b[Math.floor(rand() * n)]! += 1 + Math.floor(rand() * 5)
    if (p % 2 === 1) {
      const k = Math.floor(rand() * n)
      if (b[k] === a[k]) b[k] = Math.max(0, a[k]! - 1)
    }
    pools.dense.push([DenseVectorClock.from(a, 0), DenseVectorClock.from(b, 1)])
    const entries = (v: number[]) => ids.map((id, i) => [id, v[i]!] as const)
    pools.sparse.push([
      new SparseVectorClock(ids[0]!, entries(a)),
      new SparseVectorClock(ids[1]!, entries(b)),
    ])
    pools.objects.push([Object.fromEntries(entries(a)), Object.fromEntries(entries(b))])
  }
  return pools
}

/** Keeps results alive so no engine can drop the work. */
let sink = 0

function contenders(op: string, pools: Pools): Record<string, () => number> {
  const { dense, sparse, objects, ids } = pools
  const scratch = new DenseVectorClock(ids.length, 0)
  switch (op) {
    case 'increment': {
      const ours = new DenseVectorClock(ids.length, 0)
      const sparseOurs = new SparseVectorClock(ids[0]!)
      let vc: Record<string, number> = {}
      let th: Record<string, number> = {}
      return {
        dense: () => {
          for (let i = 0; i < BATCH; i++) ours.tick()
          if (ours.local > 1e12) ours.values[0] = 0
          return BATCH
        },
        sparse: () => {
          for (let i = 0; i < BATCH; i++) sparseOurs.tick()
          return BATCH
        },
        vectorclock: () => {
          for (let i = 0; i < BATCH; i++) vc = vectorclock.increment(vc, ids[i % ids.length]!)
          return BATCH
        },
        thing: () => {
          for (let i = 0; i < BATCH; i++) th = thing.inc(th, ids[i % ids.length]!)
          return BATCH
        },
      }
    }
    case 'merge':
      return {
        dense: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = dense[i % POOL]!
            scratch.values.set(a.values)
            scratch.merge(b)
          }
          sink += scratch.values[0]!
          return BATCH
        },
        sparse: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = sparse[i % POOL]!
            sink += a.snapshot().merge(b).size
          }
          return BATCH
        },
        vectorclock: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += vectorclock.merge(a, b).n0!
          }
          return BATCH
        },
        thing: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += thing.merge(a, b).n0!
          }
          return BATCH
        },
      }
    case 'compare':
      return {
        dense: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = dense[i % POOL]!
            if (compareDense(a, b) === 'before') sink++
          }
          return BATCH
        },
        sparse: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = sparse[i % POOL]!
            if (a.compare(b) === 'before') sink++
          }
          return BATCH
        },
        vectorclock: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += vectorclock.compare(a, b)
          }
          return BATCH
        },
        thing: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += thing.compare(a, b)
          }
          return BATCH
        },
      }
    default: {
      // merge-compare: what a receiver does, r = max(a, b), then how r relates to a.
      return {
        dense: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = dense[i % POOL]!
            scratch.values.set(a.values)
            if (compareDense(scratch.merge(b), a) === 'after') sink++
          }
          return BATCH
        },
        sparse: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = sparse[i % POOL]!
            if (a.snapshot().merge(b).compare(a) === 'after') sink++
          }
          return BATCH
        },
        vectorclock: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += vectorclock.compare(vectorclock.merge(a, b), a)
          }
          return BATCH
        },
        thing: () => {
          for (let i = 0; i < BATCH; i++) {
            const [a, b] = objects[i % POOL]!
            sink += thing.compare(thing.merge(a, b), a)
          }
          return BATCH
        },
      }
    }
  }
}

type Rate = { median: number; samples: number[] }

/** Ours against one baseline; their samples ran interleaved, so they pair round by round. */
function versus(
  name: string,
  ours: Rate,
  baselineName: string,
  baseline: Rate,
  params: Record<string, unknown>,
  extra: Record<string, unknown>,
): BenchResult {
  return {
    name,
    unit: 'ops/s',
    value: ours.median,
    baseline: { name: baselineName, value: baseline.median },
    rounds: { value: ours.samples, baseline: baseline.samples },
    params,
    extra,
  }
}

export default async function clocksBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = []
  for (const op of ['increment', 'merge', 'compare', 'merge-compare'] as const) {
    for (const n of SIZES) {
      const pools = makePools(n)
      const r = compareMany(contenders(op, pools), RATE)
      const params = { n, op }
      const extra = {
        samples: Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, v.samples.map(Math.round)]),
        ),
        note:
          op === 'increment'
            ? 'dense/sparse tick in place; vectorclock mutates its object; @thi.ng/vclock copies the object'
            : op === 'compare'
              ? 'pairs: half ordered, half concurrent'
              : 'baselines allocate the merged clock; dense copies into a reused clock, sparse snapshots',
      }
      const base = `clocks.vector.${op}.n${n}`
      results.push(versus(base, r.dense!, vectorclockName, r.vectorclock!, params, extra))
      results.push(versus(`${base}.vs-thi-ng`, r.dense!, thingName, r.thing!, params, extra))
      results.push(
        versus(
          `clocks.vector-sparse.${op}.n${n}`,
          r.sparse!,
          vectorclockName,
          r.vectorclock!,
          params,
          extra,
        ),
      )
      results.push(
        versus(
          `clocks.vector-sparse.${op}.n${n}.vs-thi-ng`,
          r.sparse!,
          thingName,
          r.thing!,
          params,
          extra,
        ),
      )
    }
  }
  // Encoded size of one clock with counters up to 1000: ours binary, the baselines' JSON (they have no codec).
  for (const n of SIZES) {
    const [a] = makePools(n).dense[0]!
    const ids = Array.from({ length: n }, (_, i) => `n${i}`)
    const object = Object.fromEntries(ids.map((id, i) => [id, a.values[i]!]))
    const json = new TextEncoder().encode(JSON.stringify(object)).length
    const sparse = new SparseVectorClock(
      ids[0]!,
      ids.map((id, i) => [id, a.values[i]!]),
    )
    const params = { n, maxCounter: 1000 }
    const extra = {
      oursJSONBytes: new TextEncoder().encode(clockToJSON(a)).length,
      baselineFormat: 'JSON.stringify of the plain-object clock (neither library has a codec)',
    }
    const size = (name: string, value: number, baseline: string): BenchResult => ({
      name,
      unit: 'bytes',
      value,
      lowerIsBetter: true,
      baseline: { name: baseline, value: json },
      params,
      extra,
    })
    const denseBytes = encodeClock(a).length
    const sparseBytes = encodeClock(sparse).length
    results.push(size(`clocks.vector.encoded-size.n${n}`, denseBytes, vectorclockName))
    results.push(size(`clocks.vector.encoded-size.n${n}.vs-thi-ng`, denseBytes, thingName))
    results.push(size(`clocks.vector-sparse.encoded-size.n${n}`, sparseBytes, vectorclockName))
  }
  if (sink === Number.MIN_VALUE) console.error(sink)
  return results
}
