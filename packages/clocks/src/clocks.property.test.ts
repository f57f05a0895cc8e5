import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  buildExecution,
  cutIsConsistent,
  type Execution,
  type Op,
  opsArbitrary,
  predecessorCount,
} from '../test/execution.js'
import { CausalHistory } from './causality.js'
import { causalPredecessors, compareVectors, concurrentAt, happenedBeforeAt } from './compare.js'
import { cannotShareFrontier, findCutViolation, isConsistentDenseCut } from './cuts.js'
import { compareHlc, type HlcTimestamp, HybridLogicalClock } from './hlc.js'
import { compareLamport, LamportClock, type LamportTimestamp } from './lamport.js'
import { DenseVectorClock } from './vector-dense.js'
import { SparseVectorClock } from './vector-sparse.js'

/** fast-check prints the seed and path of a failing run; these run counts keep the file under ~10 s. */
const RUNS = Number(process.env.SD_RUNS ?? 300)

interface Stamps {
  lamport: LamportTimestamp[]
  dense: DenseVectorClock[]
  sparse: SparseVectorClock[]
}

/** Ids for the sparse form: a mix of numbers and strings, to exercise both key types. */
const sparseId = (p: number) => (p % 2 === 0 ? p : `p${p}`)

/** Runs every clock over the execution, each event ticking by `d(e)` (1 for vector clocks). */
function replay(exec: Execution, d: (e: number) => number = () => 1): Stamps {
  const lamports = Array.from({ length: exec.n }, (_, p) => new LamportClock({ pid: p }))
  const denses = Array.from({ length: exec.n }, (_, p) => new DenseVectorClock(exec.n, p))
  const sparses = Array.from({ length: exec.n }, (_, p) => new SparseVectorClock(sparseId(p)))
  const out: Stamps = { lamport: [], dense: [], sparse: [] }
  for (const e of exec.events) {
    const l = lamports[e.process]!
    const v = denses[e.process]!
    const s = sparses[e.process]!
    if (e.kind === 'receive') {
      const send = e.send!
      l.receive(out.lamport[send]!.time, d(e.index))
      v.receive(out.dense[send]!)
      s.receive(out.sparse[send]!)
    } else {
      l.tick(d(e.index))
      v.tick()
      s.tick()
    }
    out.lamport.push(l.timestamp)
    out.dense.push(v.snapshot())
    out.sparse.push(s.snapshot())
  }
  return out
}

const execArb = fc
  .integer({ min: 1, max: 6 })
  .chain((n) => opsArbitrary(n).map((ops) => buildExecution(n, ops as Op[])))

describe('clocks against ground-truth happens-before (random executions)', () => {
  it('Lamport clock condition: a -> b implies C(a) < C(b), for any increments d > 0', () => {
    fc.assert(
      fc.property(
        execArb,
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1 }),
        (exec, ds) => {
          const { lamport } = replay(exec, (e) => ds[e % ds.length]!)
          for (const a of exec.events) {
            for (const b of exec.events) {
              if (exec.reach[a.index]![b.index]) {
                expect(lamport[a.index]!.time).toBeLessThan(lamport[b.index]!.time)
              }
            }
          }
          // The (T, pid) order is total: distinct events never compare equal.
          const sorted = [...lamport].sort(compareLamport)
          for (let i = 1; i < sorted.length; i++) {
            expect(compareLamport(sorted[i - 1]!, sorted[i]!)).toBeLessThan(0)
          }
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('vector strong clock condition both ways, dense and sparse: a -> b iff V(a) < V(b)', () => {
    fc.assert(
      fc.property(execArb, (exec) => {
        const { dense, sparse } = replay(exec)
        for (const a of exec.events) {
          for (const b of exec.events) {
            const truth = exec.reach[a.index]![b.index]!
            const va = dense[a.index]!
            const vb = dense[b.index]!
            expect(va.happenedBefore(vb)).toBe(truth)
            expect(sparse[a.index]!.happenedBefore(sparse[b.index]!)).toBe(truth)
            expect(compareVectors(sparse[a.index]!, sparse[b.index]!)).toBe(
              sparse[a.index]!.compare(sparse[b.index]!),
            )
            expect(compareVectors(va, vb)).toBe(va.compare(vb))
            const concurrent = a.index !== b.index && !truth && !exec.reach[b.index]![a.index]
            expect(va.isConcurrent(vb)).toBe(concurrent)
            expect(va.equals(vb)).toBe(a.index === b.index)
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it("the texts' O(1) tests (concurrency, happened-before at i, #(e)) agree with the ground truth", () => {
    fc.assert(
      fc.property(execArb, (exec) => {
        const { dense, sparse } = replay(exec)
        for (const a of exec.events) {
          expect(causalPredecessors(dense[a.index]!)).toBe(predecessorCount(exec, a.index))
          expect(sparse[a.index]!.predecessors()).toBe(predecessorCount(exec, a.index))
          for (const b of exec.events) {
            if (a.process === b.process) continue
            const i = a.process
            const j = b.process
            const truthConcurrent = !exec.reach[a.index]![b.index] && !exec.reach[b.index]![a.index]
            expect(concurrentAt(dense[a.index]!, i, dense[b.index]!, j)).toBe(truthConcurrent)
            expect(concurrentAt(sparse[a.index]!, sparseId(i), sparse[b.index]!, sparseId(j))).toBe(
              truthConcurrent,
            )
            expect(happenedBeforeAt(dense[a.index]!, i, dense[b.index]!)).toBe(
              exec.reach[a.index]![b.index],
            )
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('pairwise frontier test: e_i and e_j cannot share a consistent cut iff the ground truth says so', () => {
    fc.assert(
      fc.property(execArb, (exec) => {
        const { dense } = replay(exec)
        for (const a of exec.events) {
          for (const b of exec.events) {
            if (a.process === b.process) continue
            // Ground truth: the least cut holding a and b contains an event after a on p_i, or after b on p_j.
            const afterA = exec.byProcess[a.process]!.filter((x) => x > a.index)
            const afterB = exec.byProcess[b.process]!.filter((x) => x > b.index)
            const truth =
              afterA.some((x) => exec.reach[x]![b.index]) ||
              afterB.some((y) => exec.reach[y]![a.index])
            const test = cannotShareFrontier(
              { process: a.process, clock: dense[a.index]! },
              { process: b.process, clock: dense[b.index]! },
            )
            expect(test).toBe(truth)
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('whole-frontier consistent-cut test agrees with left-closure (clocks and CausalHistory)', () => {
    const cutArb = execArb.chain((exec) =>
      fc
        .tuple(...exec.byProcess.map((list) => fc.integer({ min: 0, max: list.length })))
        .map((counts) => ({ exec, counts })),
    )
    fc.assert(
      fc.property(cutArb, ({ exec, counts }) => {
        const { dense, sparse } = replay(exec)
        const truth = cutIsConsistent(exec, counts)
        const frontier = exec.byProcess.map((list, p) =>
          counts[p]! > 0 ? dense[list[counts[p]! - 1]!] : undefined,
        )
        expect(isConsistentDenseCut(frontier)).toBe(truth)
        const sparseFrontier = exec.byProcess.flatMap((list, p) =>
          counts[p]! > 0 ? [{ process: sparseId(p), clock: sparse[list[counts[p]! - 1]!]! }] : [],
        )
        expect(findCutViolation(sparseFrontier) === undefined).toBe(truth)
        const history = new CausalHistory()
        for (const e of exec.events) history.record(e.process, e.send === undefined ? [] : [e.send])
        const frontierEvents = exec.byProcess.flatMap((list, p) =>
          counts[p]! > 0 ? [list[counts[p]! - 1]!] : [],
        )
        expect(history.isConsistentCut(frontierEvents)).toBe(truth)
      }),
      { numRuns: RUNS * 2 },
    )
  })

  it('CausalHistory (bitset closure) matches the naive closure and counts', () => {
    fc.assert(
      fc.property(execArb, (exec) => {
        const history = new CausalHistory()
        for (const e of exec.events) history.record(e.process, e.send === undefined ? [] : [e.send])
        for (const a of exec.events) {
          expect(history.predecessors(a.index)).toBe(predecessorCount(exec, a.index))
          for (const b of exec.events) {
            expect(history.happenedBefore(a.index, b.index)).toBe(exec.reach[a.index]![b.index])
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('hybrid logical clocks keep the clock condition and stay within the skew of physical time', () => {
    fc.assert(
      fc.property(
        execArb,
        fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1 }),
        (exec, offsets, advances) => {
          let trueTime = 1_000
          const clocks = Array.from(
            { length: exec.n },
            (_, p) => new HybridLogicalClock({ now: () => trueTime + offsets[p]!, maxSkewMs: 100 }),
          )
          const stamps: HlcTimestamp[] = []
          for (const e of exec.events) {
            trueTime += advances[e.index % advances.length]!
            const c = clocks[e.process]!
            stamps.push(e.kind === 'receive' ? c.receive(stamps[e.send!]!) : c.now())
            // The wall part never runs ahead of the largest physical reading seen so far.
            expect(stamps[e.index]!.wall).toBeLessThanOrEqual(trueTime + 40)
          }
          for (const a of exec.events) {
            for (const b of exec.events) {
              if (exec.reach[a.index]![b.index]) {
                expect(compareHlc(stamps[a.index]!, stamps[b.index]!)).toBeLessThan(0)
              }
            }
          }
        },
      ),
      { numRuns: RUNS },
    )
  })
})
