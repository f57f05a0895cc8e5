/**
 * Runs an election protocol in the simulator with a fault plan and judges the run from its trace
 * with `checkElection`: violations, and the leader the live nodes agree on at the end.
 */
import type { NodeId, ProtocolFactory, SimNetwork, SimNetworkOptions } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import {
  agreedLeader,
  checkElection,
  type ElectionVerdict,
  type TimedEvent,
} from '../../src/check.js'
import type { ElectionRequest } from '../../src/contract.js'

export interface ElectionRunOptions {
  seed: number
  net?: Omit<SimNetworkOptions, 'seed'>
  /** Plans faults and requests on the network before it runs (crashes, starts, partitions...). */
  plan?: (net: SimNetwork) => void
  /** Virtual time to run to (heartbeats never let the network go quiet). */
  until: number
}

export interface ElectionRun<Ev = unknown> extends ElectionVerdict {
  net: SimNetwork
  /** What the protocol emitted, typed by its event type. */
  events: TimedEvent<Ev>[]
  /** Nodes not crashed at the end. */
  live: NodeId[]
  /** What every live node follows at the end, if they agree. */
  agreed: { leader: NodeId; term: number } | undefined
  /** Messages sent, by their `type` field. */
  sentByType: Record<string, number>
}

export function runElection<Msg, Ev>(
  ids: readonly NodeId[],
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  options: ElectionRunOptions,
): ElectionRun<Ev> {
  const { net, events } = runInSim(ids, factory, options)
  const verdict = checkElection(events)
  const live = ids.filter((id) => !net.isCrashed(id))
  const sentByType: Record<string, number> = {}
  for (const entry of net.trace) {
    if (entry.type !== 'send') continue
    const kind = String((entry as { msg?: { type?: unknown } }).msg?.type ?? 'unknown')
    sentByType[kind] = (sentByType[kind] ?? 0) + 1
  }
  return { ...verdict, net, events, live, agreed: agreedLeader(verdict, live), sentByType }
}
