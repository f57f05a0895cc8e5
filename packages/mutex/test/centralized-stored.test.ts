import {
  isSdError,
  type JsonValue,
  MemoryStorage,
  type ProtocolError,
  runProtocol,
  SimNetwork,
} from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'

/**
 * Issue 19, finding 3: a stored value of the wrong shape is refused (StoredStateError,
 * ERR_STORED_STATE), never read as a default. Before, `"term": "1"` or a missing coordinator
 * made a node start as if it had no state (term 0, the smallest id coordinating).
 */
function start(stored: Record<string, JsonValue>, acquire = false) {
  const sim = new SimNetwork({ seed: 1 })
  sim.addNode(2) // a silent peer
  const errors: ProtocolError[] = []
  const events: CentralizedEvent[] = []
  const handle = runProtocol(centralized({ coordinator: 1 })(1), {
    transport: sim.addNode(1),
    members: [1, 2],
    storage: new MemoryStorage(stored),
    onError: (e) => errors.push(e),
    onEvent: (e) => events.push(e),
  })
  if (acquire && !handle.stopped) handle.request({ type: 'acquire' })
  return { errors, events }
}

const refused = (errors: ProtocolError[], key: string) => {
  expect(errors).toHaveLength(1)
  const cause = errors[0]!.cause
  if (!isSdError(cause, 'ERR_STORED_STATE')) throw new Error(`not a StoredStateError: ${cause}`)
  expect(cause.key).toBe(key)
}

describe('centralized: stored state of the wrong shape is refused', () => {
  it('starts from well-formed state: term, coordinator, boots, the last token', () => {
    const { errors, events } = start(
      { term: 3, coordinator: 1, boots: 2, 'token:default': 7 },
      true,
    )
    expect(errors).toEqual([])
    // A restart of the coordinator of term 3 (boots 2 → 3): it recovers, then grants above 7.
    expect(events).toContainEqual({ type: 'recovering', term: 3 })
  })

  const cases: [what: string, stored: Record<string, JsonValue>, key: string][] = [
    ['a term that is a string', { term: '1', coordinator: 1 }, 'term'],
    ['a negative term', { term: -1, coordinator: 1 }, 'term'],
    ['a coordinator that is not an id', { term: 1, coordinator: { id: 1 } }, 'coordinator'],
    ['a term without its coordinator', { term: 1 }, 'coordinator'],
    ['a coordinator without its term', { coordinator: 2 }, 'term'],
    ['boots that are not a count', { boots: 1.5 }, 'boots'],
    ['boots as a string', { boots: '2' }, 'boots'],
  ]
  for (const [what, stored, key] of cases)
    it(`${what}: StoredStateError at start, naming the key`, () => {
      refused(start(stored).errors, key)
    })

  it('a last token of the wrong shape: StoredStateError when the coordinator grants', () => {
    const { errors, events } = start({ 'token:default': '7' }, true)
    refused(errors, 'token:default')
    expect(events.filter((e) => e.type === 'acquired')).toEqual([])
  })
})
