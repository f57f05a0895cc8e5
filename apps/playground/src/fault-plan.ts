/**
 * `--pause ID@T+D` and `--clock-step ID@T:DELTA`: timed faults asked for on the command line,
 * checked, then planned on a scenario's network. Both are deterministic (fixed times, no draw),
 * so a seed with the same flags replays the same run.
 */
import type { NodeId, SimNetwork } from '@sd/transport'
import { UsageError } from './usage.js'

export type PlannedFault =
  /** Node `node` runs no handler from `at` for `forMs` ms (its inputs and timers wait). */
  | { type: 'pause'; node: NodeId; at: number; forMs: number }
  /** Node `node`'s wall clock jumps by `deltaMs` at `at` (its monotonic clock does not). */
  | { type: 'clock-step'; node: NodeId; at: number; deltaMs: number }

/** No fault may be planned past this virtual time: a run that long shows nothing more. */
export const LATEST_FAULT_MS = 10_000

const NUMBER = /^\d+(\.\d+)?$/
const SIGNED = /^[+-]?\d+(\.\d+)?$/

/** `2@50+100,3@10+20`: node 2 paused at t=50 ms for 100 ms, node 3 at t=10 ms for 20 ms. */
/** The ids a fault may name: first..first+n-1, or any (checked by `planFaults` at the run). */
export type IdRange = { first: number; n: number } | undefined

export function parsePauses(text: string, ids: IdRange): PlannedFault[] {
  const pauses: Array<Extract<PlannedFault, { type: 'pause' }>> = []
  for (const part of parts('--pause', text)) {
    const match = /^([^@]*)@([^+]*)\+(.*)$/.exec(part)
    if (!match)
      throw new UsageError(
        `--pause takes ID@T+D (node ID paused at t=T ms for D ms), comma separated, got ${JSON.stringify(part)}`,
      )
    const node = nodeId('--pause', part, match[1]!, ids)
    const at = time('--pause', part, match[2]!)
    const forMs = Number(match[3])
    if (!SIGNED.test(match[3]!))
      throw new UsageError(`--pause ${part}: the duration D must be a number of ms`)
    if (!(forMs > 0))
      throw new UsageError(`--pause ${part}: the duration must be positive, got ${match[3]} ms`)
    if (at + forMs > LATEST_FAULT_MS)
      throw new UsageError(
        `--pause ${part}: the pause must end by t=${LATEST_FAULT_MS} ms, it ends at t=${at + forMs} ms`,
      )
    // Touching pauses count too: a resume and a pause at one instant would race.
    const overlap = pauses.find(
      (p) => p.node === node && p.at <= at + forMs && at <= p.at + p.forMs,
    )
    if (overlap)
      throw new UsageError(
        `--pause: node ${node} would be paused twice at once (${node}@${overlap.at}+${overlap.forMs} and ${part}); a paused node is already paused`,
      )
    pauses.push({ type: 'pause', node, at, forMs })
  }
  return pauses
}

/** `1@40:-500`: node 1's wall clock steps back 500 ms at t=40 ms. */
export function parseClockSteps(text: string, ids: IdRange): PlannedFault[] {
  const steps: PlannedFault[] = []
  for (const part of parts('--clock-step', text)) {
    const match = /^([^@]*)@([^:]*):(.*)$/.exec(part)
    if (!match)
      throw new UsageError(
        `--clock-step takes ID@T:DELTA (node ID's wall clock jumps by DELTA ms at t=T ms, DELTA negative for back), comma separated, got ${JSON.stringify(part)}`,
      )
    const node = nodeId('--clock-step', part, match[1]!, ids)
    const at = time('--clock-step', part, match[2]!)
    if (at > LATEST_FAULT_MS)
      throw new UsageError(`--clock-step ${part}: the step must come by t=${LATEST_FAULT_MS} ms`)
    if (!SIGNED.test(match[3]!))
      throw new UsageError(
        `--clock-step ${part}: DELTA must be a number of ms (+500, -200), got ${JSON.stringify(match[3])}`,
      )
    const deltaMs = Number(match[3])
    if (deltaMs === 0) throw new UsageError(`--clock-step ${part}: a step of 0 ms changes nothing`)
    if (Math.abs(deltaMs) > 1e9)
      throw new UsageError(`--clock-step ${part}: |DELTA| must be at most 1e9 ms`)
    steps.push({ type: 'clock-step', node, at, deltaMs })
  }
  return steps
}

/**
 * Plans the faults on the network (before it runs; times are from t=0). Once nodes are on it,
 * a fault naming another node is refused (scenarios whose ids come from the seed).
 */
export function planFaults(net: SimNetwork, faults: readonly PlannedFault[]): void {
  const ids = net.nodeIds
  for (const f of faults) {
    if (ids.length > 0 && !ids.includes(f.node))
      throw new UsageError(
        `${faultFlag(f)}: node ${String(f.node)} is not in this run; its nodes are ${ids.map(String).join(', ')}`,
      )
    if (f.type === 'pause') {
      net.at(f.at, () => net.pause(f.node))
      net.at(f.at + f.forMs, () => net.resume(f.node))
    } else {
      net.at(f.at, () => net.stepClock(f.node, f.deltaMs))
    }
  }
}

/** When the last planned fault is over (a pause ends at its resume); 0 with none. */
export function faultsEnd(faults: readonly PlannedFault[]): number {
  return faults.reduce((end, f) => Math.max(end, f.type === 'pause' ? f.at + f.forMs : f.at), 0)
}

/** `2@50+100` / `1@40:-500`: a fault as it is written on the command line. */
export function faultFlag(f: PlannedFault): string {
  return f.type === 'pause'
    ? `--pause ${String(f.node)}@${f.at}+${f.forMs}`
    : `--clock-step ${String(f.node)}@${f.at}:${f.deltaMs > 0 ? '+' : ''}${f.deltaMs}`
}

function parts(flag: string, text: string): string[] {
  const list = text.split(',').map((p) => p.trim())
  if (list.some((p) => p === '')) throw new UsageError(`${flag} has an empty entry in ${text}`)
  return list
}

function nodeId(flag: string, part: string, text: string, ids: IdRange): NodeId {
  if (!/^-?\d+$/.test(text))
    throw new UsageError(
      `${flag} ${part}: the node id must be an integer, got ${JSON.stringify(text)}`,
    )
  const id = Number(text)
  if (ids === undefined) return id
  const last = ids.first + ids.n - 1
  if (id < ids.first || id > last)
    throw new UsageError(`${flag} ${part}: node ${id} is not in ${ids.first}..${last}`)
  return id
}

/** A time from the start of the run: never before it. */
function time(flag: string, part: string, text: string): number {
  if (SIGNED.test(text) && Number(text) < 0)
    throw new UsageError(`${flag} ${part}: t=${text} ms is in the past: the run starts at t=0`)
  if (!NUMBER.test(text))
    throw new UsageError(
      `${flag} ${part}: the time T must be a number of ms, got ${JSON.stringify(text)}`,
    )
  return Number(text)
}
