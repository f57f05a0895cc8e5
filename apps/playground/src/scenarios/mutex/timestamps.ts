/**
 * Ricart-Agrawala and Lamport's mutual exclusion in the playground. The default run is the texts'
 * worked example: P1 and P2 ask at once with Lamport timestamps 41 and 34, P3 does not want the
 * resource, so P2 enters first, then P1. Other sizes and seeds get a random workload.
 */
import { lamportMutex, type MutexRequest, ricartAgrawala } from '@sd/mutex'
import { createRandom, type NodeId, type ProtocolFactory } from '@sd/transport'
import type { Scenario, ScenarioOptions } from '../../scenario.js'
import { type Ask, runMutexPlan } from './run.js'

const WORKED_EXAMPLE_SEED = 1

/** The texts' example at its default size and seed; otherwise every node asks twice at random. */
function plan({ n, seed, crash }: ScenarioOptions): {
  ids: NodeId[]
  asks: Ask[]
  example: boolean
} {
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  if (n === 3 && seed === WORKED_EXAMPLE_SEED) {
    return {
      ids,
      asks: [
        { node: 1, at: 0, hold: 5 },
        { node: 2, at: 0, hold: 5 },
      ],
      example: true,
    }
  }
  const random = createRandom(`mutex/${seed}`).next
  const asks = ids.flatMap((node) =>
    [0, 1].map(() => ({ node, at: Math.floor(random() * 40), hold: 1 + Math.floor(random() * 4) })),
  )
  return { ids, asks: asks.filter((a) => !crash.includes(a.node)), example: false }
}

function timestampScenario<Msg, Ev extends { type: string }>(
  name: string,
  short: string,
  title: string,
  algorithm: string,
  make: (initialClock: Record<string, number>) => ProtocolFactory<Msg, MutexRequest, Ev>,
): Scenario {
  return {
    name,
    title,
    description: `${algorithm} With --n 3 and the default seed it replays the texts' worked example: P1 and P2 ask at the same time with Lamport timestamps 41 and 34, P3 does not want the resource; P2 enters first, then P1. Other sizes and seeds: every node asks twice at random times. Checks that no two nodes are ever inside at once (from the acquired/released events of the trace) and that every request is served (with --crash, every request waits for ever by design, and is named as such); reports the order of entry, messages per entry, client delay and synchronization delay in message delays.`,
    crashes:
      'crashed nodes are down from the start (t=0): the others then wait for them forever, as the texts say (a crashed participant blocks everyone); the output names each request left waiting and why, and does not count it as a failure',
    pause: {
      accepts:
        'a paused node answers no request until its resume: everyone who asks meanwhile waits for it, then all are served',
    },
    defaultN: 3,
    minN: 2,
    maxN: 12,
    run(options) {
      const { ids, asks, example } = plan(options)
      const factory = make(example ? { 1: 40, 2: 33 } : {})
      const run = runMutexPlan(
        factory,
        {
          ids,
          asks,
          planned: options.faults,
          faults: (net) => {
            for (const id of options.crash) net.crash(id)
          },
          blockedBy: (_node, down) =>
            `blocked by design: ${short} needs an answer from every other node, and crashed ${down.map(String).join(', ')} never answers (the texts' point: a crashed participant blocks everyone)`,
        },
        options.seed,
      )
      if (example)
        run.result.workedExample = 'P1 asks with timestamp 41, P2 with 34: P2 enters first'
      return run
    },
  }
}

export const mutexRicartAgrawala = timestampScenario(
  'mutex-ricart-agrawala',
  'Ricart-Agrawala',
  'Ricart-Agrawala mutual exclusion: Lamport timestamps, deferred replies, 2(n-1) messages per entry',
  'A node that wants the resource multicasts a request stamped with its Lamport clock; every other node answers OK at once unless it holds the resource or wants it with an earlier (T, pid), in which case it defers its answer until it leaves. 2(n-1) messages per entry.',
  (initialClock) => ricartAgrawala({ initialClock }),
)

export const mutexLamport = timestampScenario(
  'mutex-lamport',
  "Lamport's algorithm",
  "Lamport's mutual exclusion: request queues ordered by (T, pid), 3(n-1) messages per entry",
  'Every node keeps a queue of requests ordered by Lamport timestamp; a node enters when its request heads its queue and it has heard something later from every other node; its release removes it everywhere. 3(n-1) messages per entry, over FIFO links.',
  (initialClock) => lamportMutex({ initialClock }),
)
