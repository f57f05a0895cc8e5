import type { Diagram, ProcessId, VizEvent } from './model.js'
import { fieldOf, unwrap } from './trace-entries.js'

/**
 * Two runs compared as ShiViz's pairwise comparison does: processes are paired by name, and on
 * each pair of lines the events are matched by their place and description. The description is
 * the event's kind, the message type and the peer for a send or delivery, the type of what it
 * emits or requests, the text of a ShiViz log event: message ids and times differ from run to
 * run and are left out. The matched events are a longest common subsequence of the two lines'
 * descriptions; every event outside it is a difference (present in one run, not in the other).
 */

export interface RunDiff {
  /** Events of run A (B) that the other run has no match for. */
  onlyA: Set<VizEvent>
  onlyB: Set<VizEvent>
  /** Per process name: how many of its events differ, in A and in B. */
  perProcess: Map<ProcessId, { a: number; b: number }>
  /** The process names of both runs: A's order, then those only B has. */
  processes: ProcessId[]
  total: number
}

/** Above this many cells per line pair, the lines are compared place by place instead (memory). */
const MAX_CELLS = 4_000_000

function payloadType(e: VizEvent): string | undefined {
  const { raw } = e
  if (raw === null || typeof raw !== 'object') return undefined
  const inner = unwrap(
    fieldOf(raw, e.kind === 'emit' ? 'event' : e.kind === 'request' ? 'req' : 'key'),
    e.kind === 'request' ? 'req' : 'event',
  )
  if (inner !== null && typeof inner === 'object') {
    const type = fieldOf(inner, 'type')
    return typeof type === 'string' ? type : undefined
  }
  return inner === undefined ? undefined : String(inner)
}

/** What an event is, for matching across runs: kind, message type and peer, or payload type. */
export function eventKey(e: VizEvent): string {
  if (e.kind === 'send' || e.kind === 'deliver')
    return `${e.kind} ${e.messageType ?? ''} ${e.kind === 'send' ? 'to' : 'from'} ${e.peer ?? ''}`
  if (e.kind === 'log') return `log ${e.label}`
  const type = payloadType(e)
  return type === undefined ? e.kind : `${e.kind} ${type}`
}

/** Indices of `a` and `b` outside a longest common subsequence of the two. */
export function unmatched(
  a: readonly string[],
  b: readonly string[],
): { a: number[]; b: number[] } {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const n = endA - start
  const m = endB - start
  const outA: number[] = []
  const outB: number[] = []
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    // Nothing to align (or too much): what is left between the common ends differs place by place.
    for (let i = 0; i < Math.max(n, m); i++) {
      if (i < n && i < m && a[start + i] === b[start + i]) continue
      if (i < n) outA.push(start + i)
      if (i < m) outB.push(start + i)
    }
    return { a: outA, b: outB }
  }
  // lcs[i][j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
  const w = m + 1
  const lcs = new Uint32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[start + i] === b[start + j]
          ? lcs[(i + 1) * w + j + 1]! + 1
          : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!)
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      i++
      j++
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) outA.push(start + i++)
    else outB.push(start + j++)
  }
  for (; i < n; i++) outA.push(start + i)
  for (; j < m; j++) outB.push(start + j)
  return { a: outA, b: outB }
}

function byProcess(d: Diagram): Map<ProcessId, VizEvent[]> {
  const lines = new Map<ProcessId, VizEvent[]>(d.processes.map((p) => [p, []]))
  for (const e of d.events) {
    const line = lines.get(e.process)
    if (line) line.push(e)
    else lines.set(e.process, [e])
  }
  return lines
}

/** The events of `a` and `b` that the other run has no match for, per process paired by name. */
export function diffRuns(a: Diagram, b: Diagram): RunDiff {
  const linesA = byProcess(a)
  const linesB = byProcess(b)
  const processes = [...linesA.keys()]
  for (const p of linesB.keys()) if (!linesA.has(p)) processes.push(p)
  const onlyA = new Set<VizEvent>()
  const onlyB = new Set<VizEvent>()
  const perProcess = new Map<ProcessId, { a: number; b: number }>()
  for (const p of processes) {
    const ea = linesA.get(p) ?? []
    const eb = linesB.get(p) ?? []
    const out = unmatched(ea.map(eventKey), eb.map(eventKey))
    for (const i of out.a) onlyA.add(ea[i]!)
    for (const j of out.b) onlyB.add(eb[j]!)
    perProcess.set(p, { a: out.a.length, b: out.b.length })
  }
  return { onlyA, onlyB, perProcess, processes, total: onlyA.size + onlyB.size }
}
