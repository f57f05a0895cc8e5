import { isSdError, type Protocol } from '@sd/transport'
import { createUdpTransport } from '@sd/transport/udp'
import { afterEach, describe, expect, it } from 'vitest'
import { createElection, type LeaderView } from '../src/api/index.js'
import type { ElectionEvent, ElectionRequest } from '../src/contract.js'

// The API over a stand-in algorithm: `start` makes this node leader of the next term, `resign`
// drops it. What is tested is the handle (views, waits, errors), not an election.
const standIn = () => (): Protocol<never, ElectionRequest, ElectionEvent> => {
  let term = 0
  return {
    onMessage() {},
    onRequest(req, ctx) {
      if (req.type === 'start') ctx.emit({ type: 'leader', leader: ctx.self, term: ++term })
      else ctx.emit({ type: 'leader-lost', term })
    },
  }
}

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function election() {
  const transport = await createUdpTransport<never>({ id: 'a' })
  const handle = createElection({ transport, algorithm: standIn(), members: ['a'] })
  closers.push(
    () => transport.close({ graceful: false }),
    () => handle.close(),
  )
  return handle
}

const rejection = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('createElection', () => {
  it('follows leader / leader-lost events: leader(), term(), isLeader(), onLeaderChange', async () => {
    const e = await election()
    const views: Array<LeaderView | undefined> = []
    e.onLeaderChange((v) => views.push(v))
    expect(e.leader()).toBeUndefined()
    expect(e.term()).toBe(0)
    const waiting = e.waitForLeader()
    e.start()
    expect(await waiting).toEqual({ leader: 'a', term: 1 })
    expect(e.isLeader()).toBe(true)
    e.resign()
    expect(e.leader()).toBeUndefined()
    expect(e.term()).toBe(1) // the last term seen stays known
    e.start()
    expect(views).toEqual([{ leader: 'a', term: 1 }, undefined, { leader: 'a', term: 2 }])
    expect(await e.waitForLeader()).toEqual({ leader: 'a', term: 2 })
  })

  it('waitForLeader: a typed timeout, an abort with its reason, and a close', async () => {
    const e = await election()
    const timeout = await rejection(e.waitForLeader({ timeoutMs: 20 }))
    expect(isSdError(timeout, 'ERR_ELECTION_TIMEOUT')).toBe(true)
    const controller = new AbortController()
    const aborted = rejection(e.waitForLeader({ signal: controller.signal }))
    controller.abort('shutting down')
    const error = await aborted
    expect(isSdError(error, 'ERR_ELECTION_ABORTED')).toBe(true)
    expect((error as Error).cause).toBe('shutting down')
    const closing = rejection(e.waitForLeader())
    await e.close()
    expect(isSdError(await closing, 'ERR_ELECTION_CLOSED')).toBe(true)
    expect(isSdError(await rejection(e.waitForLeader()), 'ERR_ELECTION_CLOSED')).toBe(true)
    expect(() => e.start()).toThrow(/closed/)
    expect(e.closed).toBe(true)
  })

  it('refuses a bad timeout and a missing algorithm with InvalidArgumentError', async () => {
    const e = await election()
    expect(() => e.waitForLeader({ timeoutMs: -1 })).toThrow(/timeoutMs/)
    const transport = await createUdpTransport<never>({ id: 'b' })
    closers.push(() => transport.close({ graceful: false }))
    let error: unknown
    try {
      // @ts-expect-error: the mistake under test
      createElection({ transport, members: ['b'] })
    } catch (e) {
      error = e
    }
    expect(isSdError(error, 'ERR_INVALID_ARGUMENT')).toBe(true)
  })
})

describe('createElection: onLeaderChange as an option', () => {
  it('sees a leader announced while createElection starts the protocol', async () => {
    const winsAtOnce = (): Protocol<never, ElectionRequest, ElectionEvent> => ({
      start: (ctx) => ctx.emit({ type: 'leader', leader: ctx.self, term: 1 }),
      onMessage() {},
    })
    const transport = await createUdpTransport<never>({ id: 'c' })
    const views: Array<LeaderView | undefined> = []
    const e = createElection({
      transport,
      algorithm: () => winsAtOnce(),
      members: ['c'],
      onLeaderChange: (v) => views.push(v),
    })
    closers.push(
      () => transport.close({ graceful: false }),
      () => e.close(),
    )
    expect(views).toEqual([{ leader: 'c', term: 1 }])
    expect(e.leader()).toBe('c')
  })
})
