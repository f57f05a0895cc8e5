import { concurrentAt, DenseVectorClock, isConsistentDenseCut } from '@sd/clocks'
import type { Scenario } from '../scenario.js'
import {
  annotator,
  type ClockedEvent,
  EXECUTION_LIVENESS,
  eventJSON,
  PAUSE_SLOW,
  randomExecution,
} from './lamport.js'

/**
 * Vector clocks on a random execution. Checks, against the ground truth, the strong clock
 * condition both ways, the texts' O(1) concurrency test, #(e) = sum - 1, and the consistent-cut
 * test on random frontiers.
 */
export const vector = {
  name: 'vector',
  title: 'vector clocks on a random execution: strong clock condition, concurrency, #(e), cuts',
  description:
    'The random execution of the lamport scenario, labelled with vector clocks. Checks against the true happened-before: the strong clock condition both ways, the O(1) concurrency test, #(e) = sum of V(e) - 1, and the consistent-cut test on random frontiers.',
  crashes: 'crashed nodes are down from the start (t=0): they take no step',
  pause: { accepts: PAUSE_SLOW },
  defaultN: 3,
  minN: 2,
  maxN: 32,
  run(options) {
    const { net, ids, events, history, unfinished } = randomExecution(options)
    const violations: string[] = []
    const clock = (e: ClockedEvent) => DenseVectorClock.from(e.vector, ids.indexOf(e.node))
    const clocks = events.map(clock)
    let ordered = 0
    let concurrent = 0
    for (const a of events) {
      const va = clocks[a.index]!
      if (va.predecessors() !== history.predecessors(a.index)) {
        violations.push(
          `#(e) of event ${a.index} is ${va.predecessors()} but ${history.predecessors(a.index)} events precede it`,
        )
      }
      for (const b of events) {
        const vb = clocks[b.index]!
        const truth = history.happenedBefore(a.index, b.index)
        if (truth) ordered++
        if (va.happenedBefore(vb) !== truth) {
          violations.push(
            `strong clock condition broken for events ${a.index}, ${b.index}: ${va} vs ${vb}`,
          )
        }
        if (a.node !== b.node && a.index < b.index) {
          const isConcurrent = history.concurrent(a.index, b.index)
          if (isConcurrent) concurrent++
          const i = ids.indexOf(a.node)
          const j = ids.indexOf(b.node)
          if (concurrentAt(va, i, vb, j) !== isConcurrent) {
            violations.push(`concurrency test wrong for events ${a.index}, ${b.index}`)
          }
        }
      }
    }
    // Random cuts: each node contributes its first k events; compare the clock test with the truth.
    const byNode = ids.map((id) => events.filter((e) => e.node === id))
    const cuts: { frontier: (number | null)[]; consistent: boolean }[] = []
    let rand = options.seed >>> 0
    const next = () => {
      rand = (Math.imul(rand, 1664525) + 1013904223) >>> 0
      return rand / 4294967296
    }
    for (let c = 0; c < 8; c++) {
      const frontier = byNode.map((list) => {
        const k = Math.floor(next() * (list.length + 1))
        return k === 0 ? undefined : list[k - 1]!
      })
      const byClocks = isConsistentDenseCut(frontier.map((e) => (e ? clocks[e.index] : undefined)))
      const truth = history.isConsistentCut(frontier.flatMap((e) => (e ? [e.index] : [])))
      if (byClocks !== truth)
        violations.push(`cut test wrong for frontier ${frontier.map((e) => e?.index)}`)
      cuts.push({ frontier: frontier.map((e) => e?.index ?? null), consistent: byClocks })
    }
    return {
      net,
      violations,
      liveness: { property: EXECUTION_LIVENESS, unfinished },
      annotate: annotator(events, (e) => `[${e.vector.join(',')}]`),
      result: {
        events: events.map((e) =>
          eventJSON(e, {
            vector: e.vector,
            lamport: e.lamport,
            predecessors: clocks[e.index]!.predecessors(),
          }),
        ),
        causallyOrderedPairs: ordered,
        concurrentPairs: concurrent,
        cuts,
      },
      summary: [
        `${events.length} events: ${ordered} causally ordered pairs, ${concurrent} concurrent pairs, all told apart by V(a) < V(b)`,
        `cuts (frontier = event index per node, - for none): ${cuts
          .map(
            (c) =>
              `{${c.frontier.map((i) => (i === null ? '-' : i)).join(',')}} ${c.consistent ? 'consistent' : 'inconsistent'}`,
          )
          .join('; ')}`,
      ],
    }
  },
} satisfies Scenario
