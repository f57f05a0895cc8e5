import type { NodeId, ProtocolFactory } from '@sd/transport'
import { explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { checkMutualExclusion } from '../src/check.js'
import type { MutexRequest } from '../src/contract.js'
import { lamportMutex } from '../src/lamport/protocol.js'
import { ricartAgrawala } from '../src/ricart-agrawala/protocol.js'
import { readersIgnoreWriters } from './support/shared-runs.js'

const IDS: NodeId[] = [1, 2, 3]
/**
 * The askers ask once and keep the lock: in every ordering exactly one enters (no two, since
 * nobody leaves, and one at least once everything is delivered). Counting entries does not
 * depend on how the explorer interleaved independent events.
 */
function oneEnters<Msg, Event extends { type: string }>(
  factory: () => ProtocolFactory<Msg, MutexRequest, Event>,
  askers: readonly NodeId[],
  fifo = true,
) {
  return explore<Event>({
    fifo,
    setup(net) {
      net.launch(IDS, factory())
      for (const id of askers) net.request(id, { type: 'acquire' })
    },
    invariant({ events, net }) {
      const entered = events.filter((e) => e.event.type === 'acquired').map((e) => e.node)
      if (entered.length > 1) return `${entered.join(' and ')} hold the lock at once`
      if (net.choices().length === 0 && entered.length === 0) return 'nobody entered'
      return undefined
    },
  })
}

/**
 * 1 and 2 ask while 3 has crashed, and a view without 3 reaches 1 and 2 in any order relative to
 * the requests and answers: in every ordering exactly one enters (asked in view 0 or in view 1).
 */
function oneEntersThroughAViewChange() {
  return explore<{ type: string }>({
    setup(net) {
      net.launch(IDS, ricartAgrawala())
      net.crash(3)
      for (const id of [1, 2]) net.request(id, { type: 'acquire' })
      for (const id of [1, 2]) net.request(id, { type: 'view', view: 1, members: [1, 2] })
    },
    invariant({ events, net }) {
      const entered = events.filter((e) => e.event.type === 'acquired').map((e) => e.node)
      if (entered.length > 1) return `${entered.join(' and ')} hold the lock at once`
      if (net.choices().length === 0 && entered.length === 0) return 'nobody entered'
      return undefined
    },
  })
}

describe('mutual exclusion in every ordering at n = 3 (exhaustive)', () => {
  it('Ricart-Agrawala', () => {
    const result = oneEnters(ricartAgrawala, IDS)
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
    expect(result.schedules).toBeGreaterThan(10)
  })

  it('Ricart-Agrawala with a crashed member dropped by a view change', () => {
    const result = oneEntersThroughAViewChange()
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
    expect(result.schedules).toBeGreaterThan(10)
  })

  it("Lamport's algorithm", () => {
    // Two of the three ask: with three, the orderings of its REQUEST / REPLY / queue take 40 s.
    // Its links must be FIFO, as the algorithm assumes (the explorer's default, as the simulator's).
    const result = oneEnters(lamportMutex, [1, 2])
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
  })

  it("Lamport's algorithm on links that reorder: the explorer finds two holders (its FIFO assumption)", () => {
    const result = oneEnters(lamportMutex, IDS, false)
    expect(result.counterexample?.message).toMatch(/hold the lock at once/)
  })
})

/**
 * Readers 1 and 2 ask to share, writer 3 to hold alone; nobody leaves. Their timestamps tie, so
 * ids order them: both readers come before the writer. Whether two entries conflict does not
 * depend on the order independent events took, so the all-nodes checker can judge every state.
 */
function readersAndWriter<Msg, Event extends { type: string }>(
  factory: ProtocolFactory<Msg, MutexRequest, Event>,
  leave = false,
) {
  return explore<Event>({
    // Reordering links, except with exits (the runs get long): FIFO keeps that search small.
    fifo: leave,
    setup(net) {
      const group = net.launch(IDS, factory, {
        onEmit: (node, event) => {
          if (leave && event.type === 'acquired') group.request(node, { type: 'release' })
        },
      })
      net.request(1, { type: 'acquire', mode: 'shared' })
      net.request(2, { type: 'acquire', mode: 'shared' })
      net.request(3, { type: 'acquire' })
    },
    invariant({ events, net }) {
      const { violations } = checkMutualExclusion(events)
      if (violations.length > 0) return violations[0]
      const entered = events.filter((e) => e.event.type === 'acquired').map((e) => e.node)
      if (net.choices().length === 0 && entered.length < (leave ? 3 : 1)) {
        return `only ${entered.length} entered`
      }
      return undefined
    },
  })
}

describe('Ricart-Agrawala as a readers-writers lock, one writer and two readers (exhaustive)', () => {
  it('never a reader beside the writer, on links that reorder', () => {
    const result = readersAndWriter(ricartAgrawala())
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
    expect(result.schedules).toBeGreaterThan(10)
  })

  it('each leaves once in (FIFO links): every schedule ends with all three served', () => {
    const result = readersAndWriter(ricartAgrawala(), true)
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
  })

  it('readers that answer the writer at once: the explorer finds a reader beside it', () => {
    const result = readersAndWriter(readersIgnoreWriters(ricartAgrawala()))
    expect(result.counterexample?.message).toMatch(
      /an exclusive entry beside another holder|beside a non-shared holder/,
    )
  })
})
