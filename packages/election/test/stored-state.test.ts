/**
 * Finding 3 of issue 19: stored state of the wrong shape (valid JSON, wrong types: `"term": "1"`)
 * is refused with StoredStateError (ERR_STORED_STATE), never read as an empty state. Before, two
 * damaged files of three let term 1 have two leaders.
 */
import {
  type EmittedEvent,
  emitsOf,
  isSdError,
  type JsonValue,
  type NodeId,
  type ProtocolFactory,
  SimNetwork,
  type StableStorage,
} from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { bully } from '../src/bully/index.js'
import { changRoberts } from '../src/chang-roberts/index.js'
import { checkElection } from '../src/check.js'
import type { ElectionRequest } from '../src/contract.js'
import { eventFields } from '../src/event-fields.js'
import { majorityElection } from '../src/majority/index.js'
import { ringElection } from '../src/ring/index.js'
import { storedTerm } from '../src/terms.js'

/** A bare store over a record, for the term helpers. */
const storeOf = (values: Record<string, JsonValue>): StableStorage => ({
  get: (key) => values[key],
  set: (key, value) => {
    values[key] = value
  },
  delete: (key) => {
    delete values[key]
  },
  keys: () => Object.keys(values).sort(),
})

const refusedWith = (key: string) => (error: unknown) =>
  isSdError(error, 'ERR_STORED_STATE') && (error as { key?: string }).key === key

describe('stored terms are read with their shape', () => {
  it('a term of the wrong shape throws StoredStateError naming the key; a good one is read', () => {
    for (const bad of ['1', -1, 1.5, null, {}, [1], true]) {
      let error: unknown
      try {
        storedTerm(storeOf({ term: bad }))
      } catch (e) {
        error = e
      }
      expect(refusedWith('term')(error), `term ${JSON.stringify(bad)}`).toBe(true)
      expect(String((error as Error).message)).toMatch(/should be an integer >= 0/)
    }
    expect(storedTerm(storeOf({ term: 4 }))).toBe(4)
    expect(storedTerm(storeOf({}))).toBe(0)
  })
})

/**
 * A factory whose first instance on each node only writes `stores[node]` to its disk; after a
 * restart the node runs `factory` on that disk, as a process would on a file left behind.
 */
function onStores<Msg, Ev>(
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  stores: Record<string, Record<string, JsonValue>>,
): ProtocolFactory<Msg, ElectionRequest, Ev> {
  const written = new Set<NodeId>()
  return (self) => {
    if (written.has(self)) return factory(self)
    written.add(self)
    return {
      start(ctx) {
        for (const [key, value] of Object.entries(stores[String(self)] ?? {}))
          ctx.storage.set(key, value)
      },
      onMessage() {},
    }
  }
}

/** Runs `factory` on `ids` with their stores, restarting `restart`; the error that stopped it. */
function runOnStores<Msg, Ev>(
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  ids: NodeId[],
  stores: Record<string, Record<string, JsonValue>>,
  restart: NodeId[],
): { events: EmittedEvent[]; error: unknown } {
  const net = new SimNetwork({ seed: 1 })
  net.launch(ids, onStores(factory, stores))
  net.at(1, () => {
    for (const id of ids) net.crash(id)
  })
  net.at(2, () => {
    for (const id of restart) net.restart(id)
  })
  let error: unknown
  try {
    net.run({ until: 10_000 })
  } catch (e) {
    error = e
  }
  return { events: emitsOf(net.trace), error }
}

/** The StoredStateError somewhere in the causes of `error`, if any. */
function storedStateError(error: unknown): { key: string; message: string } | undefined {
  for (let e = error; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
    if (isSdError(e, 'ERR_STORED_STATE')) return e as unknown as { key: string; message: string }
  }
  return undefined
}

describe("the issue's case: two of three state files damaged", () => {
  // Node 3 led term 1 with the votes of 2 and 3, then everybody went down. The files of 1 and 2
  // were then damaged: valid JSON, wrong types. Node 3 stays down.
  const stores = {
    '1': { term: '1', 'majority:vote': { term: '1', for: 1 } },
    '2': { term: '1', 'majority:vote': { term: '1', for: 3 } },
    '3': {
      term: 1,
      'majority:vote': { term: 1, for: 3 },
      'majority:shown': { term: 1, leader: 3 },
    },
  } as Record<string, Record<string, JsonValue>>
  const before: EmittedEvent = { node: 3, t: 0, event: { type: 'leader', leader: 3, term: 1 } }

  it('the damaged nodes refuse to start; no second leader of term 1', () => {
    const { events, error } = runOnStores(majorityElection(), [1, 2, 3], stores, [1, 2])
    expect(checkElection([before, ...events]).violations).toEqual([])
    expect(storedStateError(error)?.key).toBe('term')
    const leaders = events.filter((e) => eventFields(e.event)?.type === 'leader')
    expect(leaders).toEqual([])
  })

  it('a vote or an announcement of the wrong shape is refused too', () => {
    const wrongShapes: [string, JsonValue][] = [
      ['majority:vote', { term: '1', for: 3 }],
      ['majority:vote', { term: 1 }],
      ['majority:vote', { term: 1, for: null }],
      ['majority:shown', { term: 1, leader: [3] }],
      ['majority:shown', 'n3'],
    ]
    for (const [key, value] of wrongShapes) {
      const damaged = { '1': { term: 1, [key]: value }, '2': {}, '3': {} }
      const { error } = runOnStores(majorityElection(), [1, 2, 3], damaged, [1, 2, 3])
      expect(storedStateError(error)?.key, `${key} = ${JSON.stringify(value)}`).toBe(key)
    }
  })

  it('well-formed files are read: the nodes follow on from term 1', () => {
    const good = {
      '1': { term: 1, 'majority:vote': { term: 1, for: 1 } },
      '2': { term: 1, 'majority:vote': { term: 1, for: 3 } },
      '3': stores['3']!,
    }
    const { events, error } = runOnStores(majorityElection(), [1, 2, 3], good, [1, 2])
    expect(error).toBeUndefined()
    expect(checkElection([before, ...events]).violations).toEqual([])
    const terms = events.flatMap((e) => {
      const f = eventFields(e.event)
      return f?.type === 'leader' && typeof f.term === 'number' ? [f.term] : []
    })
    expect(terms.length).toBeGreaterThan(0)
    expect(Math.min(...terms)).toBeGreaterThan(1)
  })
})

describe('bully, ring and Chang-Roberts refuse stored state of the wrong shape', () => {
  const cases = [
    ['bully', () => bully(), { term: '1' }, 'term'],
    ['ring', () => ringElection(), { term: 1.5 }, 'term'],
    ['ring', () => ringElection(), { 'ring:started': 'yes' }, 'ring:started'],
    ['Chang-Roberts', () => changRoberts(), { term: -2 }, 'term'],
    [
      'Chang-Roberts',
      () => changRoberts(),
      { 'chang-roberts:started': 1 },
      'chang-roberts:started',
    ],
  ] as const
  for (const [name, make, store, key] of cases) {
    it(`${name}: ${JSON.stringify(store)} stops the node with ERR_STORED_STATE (${key})`, () => {
      const factory = make() as ProtocolFactory<unknown, ElectionRequest, unknown>
      const { error } = runOnStores(factory, [1, 2, 3], { '1': store, '2': {}, '3': {} }, [1, 2, 3])
      const found = storedStateError(error)
      expect(found?.key).toBe(key)
      expect(found?.message).toMatch(/damaged or was written by something else/)
    })
  }
})
