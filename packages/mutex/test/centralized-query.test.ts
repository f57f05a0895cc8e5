import { describe, expect, it } from 'vitest'
import { centralized } from '../src/centralized/index.js'
import { MAX_STATE_ENTRIES, MAX_STATE_RESOURCES, stateOf } from '../src/centralized/lock-state.js'
import { parseMessage } from '../src/centralized/messages.js'
import { newResource, type Resource } from '../src/centralized/resource.js'
import { lockFeaturesOf } from '../src/contract.js'
import { handDriven } from './support/hand-driven.js'
import { modeSim } from './support/mode-sim.js'

// The coordinator's answer to a QUERY (its holders and queues), and the checks of both messages.

describe('centralized: query', () => {
  it('is marked with the query feature', () => {
    expect(lockFeaturesOf(centralized())).toContain('query')
  })

  it("answers with every resource's holders (node order) and queue (order received)", () => {
    const s = modeSim()
    s.acquire(3, 0, { mode: 'shared' })
    s.acquire(2, 0, { mode: 'shared' })
    s.acquire(4, 10) // a writer waits behind the readers
    s.acquire(1, 20, { mode: 'shared' }) // fifo: behind the writer (queued at 15)
    s.acquire(2, 0, { resource: 'other' })
    s.net.request(3, { type: 'query', id: 'q1' }, 30)
    const r = s.run(100)
    const answers = r.of(3, 'lock-state')
    expect(answers).toHaveLength(1)
    const { t, ...answer } = answers[0]!
    expect(t).toBe(40) // QUERY out and back: 2 x 5 ms
    const token = (node: number, resource = 'default') =>
      r.of(node, 'acquired').find((e) => e.resource === resource)!.token
    expect(answer).toEqual({
      type: 'lock-state',
      id: 'q1',
      term: 0,
      recovering: false,
      truncated: false,
      resources: [
        {
          resource: 'default',
          holders: [
            { node: 2, mode: 'shared', token: token(2) },
            { node: 3, mode: 'shared', token: token(3) },
          ],
          queue: [
            { node: 4, mode: 'exclusive' },
            { node: 1, mode: 'shared' },
          ],
        },
        {
          resource: 'other',
          holders: [{ node: 2, mode: 'exclusive', token: token(2, 'other') }],
          queue: [],
        },
      ],
    })
  })

  it('the coordinator answers its own query at once, without a message; numbers are ids too', () => {
    const s = modeSim()
    s.acquire(2, 0)
    s.net.request(1, { type: 'query', id: 7 }, 20)
    const r = s.run(100)
    expect(r.of(1, 'lock-state')).toEqual([
      expect.objectContaining({
        t: 20,
        id: 7,
        resources: [expect.objectContaining({ resource: 'default' })],
      }),
    ])
    const queries = s.net.trace.filter(
      (e) => e.type === 'send' && (e.msg as { type?: unknown }).type === 'query',
    )
    expect(queries).toEqual([])
  })

  it('permit entries carry their permits; writers-first lists the writers first', () => {
    const s = modeSim({ readers: 'writers-first' })
    s.acquire(2, 0, { resource: 's', permits: { take: 2, of: 3 } })
    s.acquire(3, 5, { resource: 's', permits: { take: 2, of: 3 } }) // does not fit: waits
    s.acquire(2, 0, { resource: 'rw' })
    s.acquire(3, 10, { resource: 'rw', mode: 'shared' })
    s.acquire(4, 20, { resource: 'rw' })
    s.net.request(4, { type: 'query', id: 'q' }, 40)
    const r = s.run(100)
    const [answer] = r.of(4, 'lock-state')
    expect(
      answer!.resources.map((x) => [x.resource, x.holders.map((h) => h.node), x.queue]),
    ).toEqual([
      [
        'rw',
        [2],
        [
          { node: 4, mode: 'exclusive' },
          { node: 3, mode: 'shared' },
        ],
      ],
      ['s', [2], [{ node: 3, mode: 'exclusive', permits: { take: 2, of: 3 } }]],
    ])
    expect(answer!.resources[1]!.holders[0]).toMatchObject({ permits: { take: 2, of: 3 } })
  })

  it('a recovering coordinator says its view is incomplete', () => {
    const s = modeSim({ leaseMs: 100, maxDelayMs: 50 })
    s.acquire(3, 0)
    for (const node of [1, 2, 3, 4])
      s.net.request(node, { type: 'coordinator', id: 2, term: 1 }, 20)
    s.net.at(21, () => s.net.crash(4)) // never answers RECOVER: recovery waits for the leases
    s.acquire(1, 30)
    s.net.request(1, { type: 'query', id: 'during' }, 50)
    s.net.request(1, { type: 'query', id: 'after' }, 400)
    const r = s.run(500)
    const [during, after] = r.of(1, 'lock-state')
    expect(during).toMatchObject({ id: 'during', term: 1, recovering: true })
    // Node 3's claim (its SYNC) is known; node 1's request waits until recovery ends.
    expect(during!.resources).toEqual([
      expect.objectContaining({
        holders: [expect.objectContaining({ node: 3 })],
        queue: [{ node: 1, mode: 'exclusive' }],
      }),
    ])
    expect(after).toMatchObject({ id: 'after', term: 1, recovering: false })
  })

  it('nothing lasting: the snapshots of coordinator and client before and after are equal', () => {
    const coord = handDriven(centralized({ coordinator: 1 })(1), 1, [2, 3])
    const client = handDriven(centralized({ coordinator: 1 })(3), 3, [1, 2])
    coord.protocol.onMessage(
      2,
      { type: 'request', term: 0, resource: 'r', seq: 1, at: 0 },
      coord.ctx,
    )
    const before = [coord.protocol.snapshot?.(), client.protocol.snapshot?.()]
    client.protocol.onRequest?.({ type: 'query', id: 'x' }, client.ctx)
    expect(client.sent).toEqual([[1, { type: 'query', term: 0, id: 'x' }]])
    coord.protocol.onMessage(3, client.sent[0]![1], coord.ctx)
    const [to, answer] = coord.sent.at(-1)!
    expect(to).toBe(3)
    client.protocol.onMessage(1, answer, client.ctx)
    expect(client.events.at(-1)).toMatchObject({ type: 'lock-state', id: 'x' })
    expect([coord.protocol.snapshot?.(), client.protocol.snapshot?.()]).toEqual(before)
  })

  it('a node that does not coordinate ignores a QUERY; a client ignores an answer of another node', () => {
    const client = handDriven(centralized({ coordinator: 1 })(2), 2, [1, 3])
    client.protocol.onMessage(3, { type: 'query', term: 0, id: 1 }, client.ctx)
    const answer = {
      type: 'lock-state',
      term: 0,
      id: 1,
      recovering: false,
      truncated: false,
      resources: [],
    }
    client.protocol.onMessage(3, answer, client.ctx)
    expect(client.events.map((e) => e.type)).toEqual(['ignored', 'ignored'])
    client.protocol.onMessage(1, answer, client.ctx)
    expect(client.events.at(-1)).toEqual({ ...answer, type: 'lock-state' })
  })

  it('a malformed query request is ignored', () => {
    const node = handDriven(centralized({ coordinator: 1 })(2), 2, [1, 3])
    for (const id of [undefined, {}, Number.NaN, 'x'.repeat(201)]) {
      node.protocol.onRequest?.({ type: 'query', id }, node.ctx)
    }
    expect(node.events).toEqual(
      Array(4).fill({ type: 'ignored', from: 2, reason: 'malformed query' }),
    )
    expect(node.sent).toEqual([])
  })
})

describe('centralized: the QUERY and its answer from peers are checked', () => {
  const answer = (resources: unknown, extra: object = {}) => ({
    type: 'lock-state',
    term: 0,
    id: 'q',
    recovering: false,
    truncated: false,
    resources,
    ...extra,
  })
  const holder = { node: 'n2', token: 5 }

  it('accepts well-formed ones', () => {
    expect(parseMessage({ type: 'query', term: 3, id: 'q' })).toMatchObject({ id: 'q' })
    const ok = answer([
      {
        resource: 'r',
        holders: [holder, { node: 'n3', token: 6, mode: 'shared' }],
        queue: [{ node: 'n4', steal: true }],
      },
    ])
    expect(parseMessage(ok)).toEqual(ok)
  })

  it.each([
    ['a query without a term', { type: 'query', id: 'q' }, 'malformed query: term'],
    ['a query id of another type', { type: 'query', term: 0, id: { a: 1 } }, 'malformed query: id'],
    ['a query id too long', { type: 'query', term: 0, id: 'x'.repeat(201) }, 'malformed query: id'],
    [
      'recovering not a boolean',
      answer([], { recovering: 'yes' }),
      'malformed lock-state: recovering',
    ],
    ['truncated missing', answer([], { truncated: undefined }), 'malformed lock-state: truncated'],
    ['resources not an array', answer({}), 'malformed lock-state: resources'],
    [
      'a holder without a token',
      answer([{ resource: 'r', holders: [{ node: 'n2' }], queue: [] }]),
      'malformed lock-state: resources',
    ],
    [
      'a holder of bad permits',
      answer([{ resource: 'r', holders: [{ ...holder, permits: { take: 4, of: 3 } }], queue: [] }]),
      'malformed lock-state: resources',
    ],
    [
      'a waiting request of an unknown mode',
      answer([{ resource: 'r', holders: [], queue: [{ node: 'n2', mode: 'exclusive' }] }]),
      'malformed lock-state: resources',
    ],
    [
      'a resource without a name',
      answer([{ holders: [], queue: [] }]),
      'malformed lock-state: resources',
    ],
    [
      'too many resources',
      answer(
        Array.from({ length: MAX_STATE_RESOURCES + 1 }, (_, i) => ({
          resource: `r${i}`,
          holders: [],
          queue: [],
        })),
      ),
      'malformed lock-state: resources',
    ],
    [
      'too many entries in all',
      answer([
        { resource: 'a', holders: [], queue: Array(MAX_STATE_ENTRIES / 2).fill({ node: 'n2' }) },
        {
          resource: 'b',
          holders: [],
          queue: Array(MAX_STATE_ENTRIES / 2 + 1).fill({ node: 'n2' }),
        },
      ]),
      'malformed lock-state: resources',
    ],
  ])('refuses %s', (_, msg, reason) => {
    expect(parseMessage(msg)).toBe(reason)
  })
})

describe('centralized: the answer is bounded', () => {
  const waiting = (node: string) => ({ node, seq: 1, at: 0 })
  const busy = (n: number): Resource => ({
    ...newResource(),
    queue: Array.from({ length: n }, (_, i) => waiting(`n${i}`)),
  })

  it(`at most ${MAX_STATE_RESOURCES} resources, in name order, the rest truncated; idle ones left out`, () => {
    const resources = new Map<string, Resource>([['idle', newResource()]])
    for (let i = 0; i < MAX_STATE_RESOURCES + 5; i++)
      resources.set(`r${String(i).padStart(3, '0')}`, busy(1))
    const state = stateOf(resources, 'fifo')
    expect(state.truncated).toBe(true)
    expect(state.resources).toHaveLength(MAX_STATE_RESOURCES)
    expect(state.resources[0]!.resource).toBe('r000')
    expect(state.resources.at(-1)!.resource).toBe(`r0${MAX_STATE_RESOURCES - 1}`)
    expect(
      parseMessage({ type: 'lock-state', term: 0, id: 1, recovering: false, ...state }),
    ).not.toBeTypeOf('string')
  })

  it(`at most ${MAX_STATE_ENTRIES} entries: a resource that does not fit ends the list`, () => {
    const resources = new Map([
      ['a', busy(MAX_STATE_ENTRIES - 1)],
      ['b', busy(2)],
      ['c', busy(1)],
    ])
    const state = stateOf(resources, 'fifo')
    expect(state).toMatchObject({ truncated: true, resources: [{ resource: 'a' }] })
    expect(stateOf(new Map([['a', busy(3)]]), 'fifo').truncated).toBe(false)
  })
})
