/**
 * Test support: random executions of n processes (internal events, sends, receives) and their
 * ground-truth happens-before, computed naively by transitive closure (independent of the
 * library's CausalHistory, which is itself checked against it).
 */
import fc from 'fast-check'

export interface ExecEvent {
  index: number
  process: number
  kind: 'internal' | 'send' | 'receive'
  /** For a receive: the index of its send event. */
  send?: number
  /** For a send: the receiving process. */
  to?: number
}

export interface Execution {
  n: number
  events: ExecEvent[]
  /** byProcess[p] = indices of p's events in order. */
  byProcess: number[][]
  /** reach[a][b] = a -> b (ground truth). */
  reach: boolean[][]
}

/** One step: (process, kind 0 internal / 1 send / 2 receive, two choice numbers). */
export type Op = [number, number, number, number]

export const opsArbitrary = (n: number, maxSteps = 60) =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(2), fc.nat(1000), fc.nat(1000)), {
    minLength: 1,
    maxLength: maxSteps,
  })

/** Builds the execution the ops describe; a receive with nothing in flight becomes internal. */
export function buildExecution(n: number, ops: readonly Op[]): Execution {
  const events: ExecEvent[] = []
  const byProcess: number[][] = Array.from({ length: n }, () => [])
  const inFlight: { send: number; to: number }[] = []
  const add = (e: Omit<ExecEvent, 'index'>) => {
    const index = events.length
    events.push({ ...e, index })
    byProcess[e.process]!.push(index)
  }
  for (const [p, kind, a] of ops) {
    if (kind === 1 && n > 1) {
      const to = (p + 1 + (a % (n - 1))) % n
      inFlight.push({ send: events.length, to })
      add({ process: p, kind: 'send', to })
    } else if (kind === 2) {
      const mine = inFlight.filter((m) => m.to === p)
      if (mine.length === 0) {
        add({ process: p, kind: 'internal' })
        continue
      }
      const m = mine[a % mine.length]!
      inFlight.splice(inFlight.indexOf(m), 1)
      add({ process: p, kind: 'receive', send: m.send })
    } else {
      add({ process: p, kind: 'internal' })
    }
  }
  return { n, events, byProcess, reach: naiveClosure(events) }
}

/** Direct predecessors: the previous event of the process, and the send of a receive. */
export function directPredecessors(events: readonly ExecEvent[]): number[][] {
  const last = new Map<number, number>()
  return events.map((e) => {
    const preds: number[] = []
    const prev = last.get(e.process)
    if (prev !== undefined) preds.push(prev)
    if (e.send !== undefined) preds.push(e.send)
    last.set(e.process, e.index)
    return preds
  })
}

/** reach[a][b] by depth-first search backwards from every b: O(E^2), fine for tests. */
export function naiveClosure(events: readonly ExecEvent[]): boolean[][] {
  const preds = directPredecessors(events)
  const reach = events.map(() => events.map(() => false))
  for (const b of events) {
    const stack = [...preds[b.index]!]
    while (stack.length > 0) {
      const a = stack.pop()!
      if (reach[a]![b.index]) continue
      reach[a]![b.index] = true
      stack.push(...preds[a]!)
    }
  }
  return reach
}

export function predecessorCount(exec: Execution, e: number): number {
  let count = 0
  for (let a = 0; a < exec.events.length; a++) if (exec.reach[a]![e]) count++
  return count
}

/** Ground truth: is the cut that holds the first counts[p] events of each p left-closed? */
export function cutIsConsistent(exec: Execution, counts: readonly number[]): boolean {
  const inCut = new Set<number>()
  exec.byProcess.forEach((list, p) => {
    for (let k = 0; k < counts[p]!; k++) inCut.add(list[k]!)
  })
  for (const e of inCut) {
    for (let a = 0; a < exec.events.length; a++) {
      if (exec.reach[a]![e] && !inCut.has(a)) return false
    }
  }
  return true
}

/** A small seeded PRNG for seeded loops (mulberry32). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
