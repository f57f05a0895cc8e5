/**
 * The shared judge of the election specs: checkElection of @sd/election over every node's events
 * (one leader per term, terms never go back; with the faults and a grace, no leader on a minority
 * side), and at the end every live node follows the expected leader.
 */

import { checkElection, type ElectionRequest, type ElectionViolation } from '@sd/election'
import {
  type FaultEvent,
  InvalidArgumentError,
  type NodeId,
  type ProtocolFactory,
  type SimNetwork,
  type TimedEvent,
} from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { atEnd } from './spec.js'

export interface ElectionScenarioOptions {
  ids: readonly NodeId[]
  /** Crashes, restarts, partitions and requests, planned before the run. */
  plan?: (net: SimNetwork) => void
  /** Virtual time bound: the end is when no message is in flight and no timer is due by then. */
  until?: number
  /** Who every live node must follow at the end (undefined: agreement is not judged). */
  winner?: (net: SimNetwork) => NodeId | undefined
  /**
   * Faults planned at set times (crash, restart, partition, heal), and judged by checkElection:
   * the explorer keeps no trace, so the faults are recorded here as they happen.
   */
  faults?: readonly FaultEvent[]
  /** Judge "no leader on a minority side" with this grace (majority election only). */
  minorityGraceMs?: number
}

/** The faults that have happened in each explored network, in order. */
const happened = new WeakMap<SimNetwork, FaultEvent[]>()

function planFault(net: SimNetwork, fault: FaultEvent): void {
  net.at(fault.t, () => {
    if (fault.type === 'crash') net.crash(fault.node)
    else if (fault.type === 'restart') net.restart(fault.node)
    else if (fault.type === 'partition') net.partition(...fault.groups.map((g) => [...g]))
    else if (fault.type === 'heal') net.heal()
    else throw new Error(`electionScenario plans no ${fault.type}`)
    happened.get(net)?.push(fault)
  })
}

/** A violation of checkElection in words. */
export function describeElection(v: ElectionViolation): string {
  switch (v.kind) {
    case 'two-leaders-in-term':
      return `term ${v.term} has two leaders: ${v.leaders.map(String).join(' and ')}`
    case 'term-went-back':
      return `node ${String(v.node)}'s term went back from ${v.from} to ${v.to} at ${v.t}`
    case 'two-leaders-at-once':
      return `nodes ${String(v.leaders[0])} and ${String(v.leaders[1])} both led in [${v.from}, ${v.to})`
    case 'leader-in-minority':
      return `node ${String(v.node)} still led term ${v.term} at ${v.t}, reaching only ${v.reachable.map(String).join(', ')} since ${v.since}`
  }
}

export function electionScenario<Msg, Ev>(
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  options: ElectionScenarioOptions,
): ExploreScenario<Ev> {
  const { ids, until } = options
  return {
    setup(net) {
      net.launch(ids, factory)
      const faults: FaultEvent[] = []
      happened.set(net, faults)
      for (const fault of options.faults ?? []) planFault(net, fault)
      options.plan?.(net)
    },
    // The explorer (and the lab) return to saved states: the faults of one branch must not leak
    // into the next.
    sideState: {
      save: (net) => happened.get(net)?.length ?? 0,
      restore(net, saved) {
        const faults = happened.get(net)
        if (
          faults === undefined ||
          !Number.isSafeInteger(saved) ||
          (saved as number) > faults.length
        )
          throw new InvalidArgumentError(`election spec: no ${String(saved)} faults to go back to`)
        faults.length = saved as number
      },
    },
    invariant({ net, events }) {
      const all = events as ReadonlyArray<TimedEvent<Ev>>
      const faults = happened.get(net) ?? []
      const verdict =
        options.faults === undefined
          ? checkElection(all)
          : checkElection(all, faults, {
              members: ids,
              ...(options.minorityGraceMs === undefined
                ? {}
                : { minorityGraceMs: options.minorityGraceMs }),
            })
      const broken = verdict.violations[0]
      if (broken !== undefined) return describeElection(broken)
      const winner = options.winner?.(net)
      if (winner === undefined || !atEnd(net, until)) return undefined
      for (const id of ids.filter((i) => !net.isCrashed(i))) {
        const view = verdict.final.get(id)
        if (view?.leader !== winner)
          return `node ${String(id)} ends ${view ? `following ${String(view.leader)}` : 'without a leader'}, not ${String(winner)}`
      }
      return undefined
    },
  }
}
