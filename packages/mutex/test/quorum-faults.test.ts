import { type JsonValue, MemoryStorage, messageType, runProtocol, SimNetwork } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import type { TimedEvent } from '../src/check.js'
import { type QuorumMutexEvent, quorumMutex } from '../src/quorum/index.js'
import { runMutex } from './support/harness.js'
import { coordinators } from './support/quorum-runs.js'

// What the README's row for the quorum mutex says about crashed clients and damaged state.
const everyone = [...coordinators, 'p1', 'p2']

const servedTo = (events: readonly TimedEvent<QuorumMutexEvent>[]) =>
  ofType(events, 'acquired').map((e) => e.node)

describe('quorumMutex: a client that crashes holding grants', () => {
  // p1 enters at t = 2 and crashes inside at t = 10; p2 asks at t = 20 and is denied by all.
  const plan = (restartAt: number | undefined) => (net: SimNetwork) => {
    net.at(10, () => net.crash('p1'))
    if (restartAt !== undefined) net.at(restartAt, () => net.restart('p1'))
  }
  const asks = [
    { node: 'p1', at: 0, hold: 1000 },
    { node: 'p2', at: 20, hold: 5 },
  ]

  it('gives them back when it restarts and a coordinator asks: the next client is served', () => {
    for (const durableGrants of [false, true]) {
      const run = runMutex(everyone, quorumMutex({ coordinators, m: 3, durableGrants }), asks, {
        seed: 1,
        faults: plan(300),
        until: 5000,
      })
      expect(run.violations).toEqual([])
      expect(servedTo(run.events)).toEqual(['p1', 'p2'])
      // Coordinators asked the new life of p1 about the round of its earlier life.
      const queries = run.net.trace.filter(
        (e) => e.type === 'send' && e.to === 'p1' && messageType(e.msg) === 'query',
      )
      expect(queries.length).toBeGreaterThanOrEqual(3)
    }
  })

  it('keeps them for good when it never comes back (no leases): the resource stays taken', () => {
    const run = runMutex(everyone, quorumMutex({ coordinators, m: 3 }), asks, {
      seed: 1,
      faults: plan(undefined),
      until: 5000,
    })
    expect(run.violations).toEqual([])
    expect(servedTo(run.events)).toEqual(['p1'])
  })
})

describe('quorumMutex: durable grants are read with their shape', () => {
  const start = (stored: Record<string, JsonValue>) => {
    const net = new SimNetwork({ seed: 1 })
    return runProtocol(quorumMutex({ coordinators: ['c1'], durableGrants: true })('c1'), {
      transport: net.addNode('c1'),
      members: ['c1', 'p1'],
      storage: new MemoryStorage(stored),
    })
  }
  const refused = (key: string) =>
    expect.objectContaining({
      code: 'ERR_PROTOCOL',
      cause: expect.objectContaining({ code: 'ERR_STORED_STATE', key }),
    })

  it('refuses a grant or a counter of the wrong shape when the coordinator starts', () => {
    const grant = { client: 'p1', session: 7, attempt: 1, counter: 1 }
    expect(() => start({ 'quorum/grant/x': { ...grant, session: '7' } })).toThrow(
      refused('quorum/grant/x'),
    )
    expect(() => start({ 'quorum/grant/x': { ...grant, counter: -1 } })).toThrow(
      refused('quorum/grant/x'),
    )
    expect(() => start({ 'quorum/grant/x': [] })).toThrow(refused('quorum/grant/x'))
    expect(() => start({ 'quorum/counter/x': '3' })).toThrow(refused('quorum/counter/x'))
    expect(() => start({ 'quorum/counter/x': 1.5 })).toThrow(refused('quorum/counter/x'))
  })

  it('reads a well-formed store: a remembered grant keeps others out', () => {
    const stored = {
      'quorum/grant/default': { client: 'p1', session: 7, attempt: 1, counter: 4 },
      'quorum/counter/default': 4,
    }
    const net = new SimNetwork({ seed: 1 })
    const answers: unknown[] = []
    const c1 = runProtocol(quorumMutex({ coordinators: ['c1'], durableGrants: true })('c1'), {
      transport: net.addNode('c1'),
      members: ['c1', 'p1', 'p2'],
      storage: new MemoryStorage(stored),
    })
    const p2 = net.addNode('p2')
    p2.onMessage((_from, msg) => answers.push(msg))
    p2.send('c1', { type: 'request', resource: 'default', session: 1, attempt: 1, token: 0 })
    net.run()
    c1.stop()
    expect(answers).toEqual([{ type: 'deny', resource: 'default', session: 1, attempt: 1 }])
  })
})
