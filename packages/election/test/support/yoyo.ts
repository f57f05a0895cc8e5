/** Runs YoYo on a graph in the simulator and reads what the tests check from its trace. */
import { type NodeId, type SimNetworkOptions, sortNodeIds } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { type Graph, type YoyoEvent, yoyo } from '../../src/yoyo/index.js'
import { type ElectionRun, runElection } from './harness.js'

/** No timer anywhere: the run ends when the network is idle, long before this. */
export const UNTIL = 1e9

export interface YoyoRun extends ElectionRun<YoyoEvent> {
  graph: Graph
  /** Full iterations the leader went through (its `elected` event). */
  iterations: number | undefined
  /** Sources per iteration, from the nodes' `yo-` phase events: index 0 is iteration 1. */
  sources: number[]
  /** Virtual time of the last message sent. */
  lastSend: number
}

export function runYoyo(
  graph: Graph,
  seed: number,
  net?: SimNetworkOptions,
  plan?: Parameters<typeof runElection>[2]['plan'],
): YoyoRun {
  const run = runElection(graph.nodes, yoyo({ neighbors: graph.neighbors }), {
    seed,
    until: UNTIL,
    ...(net === undefined ? {} : { net }),
    ...(plan === undefined ? {} : { plan }),
  })
  let iterations: number | undefined
  const sources: number[] = []
  for (const { event: e } of run.events) {
    if (e.type === 'elected') iterations = e.iterations
    if (e.type === 'phase' && e.phase === 'yo-' && e.role === 'source') {
      sources[e.iteration - 1] = (sources[e.iteration - 1] ?? 0) + 1
    }
  }
  let lastSend = 0
  for (const entry of run.net.trace) if (entry.type === 'send') lastSend = entry.t
  return { ...run, graph, iterations, sources, lastSend }
}

/** The events of one type, with the node and time. */
export function eventsOf<T extends YoyoEvent['type']>(run: ElectionRun<YoyoEvent>, type: T) {
  return ofType(run.events, type).map((e) => ({ node: e.node, t: e.t, ...e.event }))
}

export const minOf = (ids: readonly NodeId[]) => sortNodeIds(ids)[0]
