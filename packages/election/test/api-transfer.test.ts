/**
 * `transferLeadership` and `observe` on createElection's handle: three members of the majority
 * mode over UDP on loopback (no timing asserted: waits are bounded only to fail instead of hang).
 */
import { isSdError, type NodeId } from '@sd/transport'
import { createUdpTransport } from '@sd/transport/udp'
import { afterEach, describe, expect, it } from 'vitest'
import { createElection, type Election, type LeaderView } from '../src/api/index.js'
import { majorityElection } from '../src/majority/index.js'

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

const ids = ['n1', 'n2', 'n3']
const WAIT = { timeoutMs: 20_000 }

async function group(): Promise<Election<unknown>[]> {
  const transports = await Promise.all(ids.map((id) => createUdpTransport<unknown>({ id })))
  for (const t of transports) {
    for (const peer of transports) if (peer !== t) t.setPeer(peer.self, peer.address)
    closers.push(() => t.close({ graceful: false }))
  }
  const heartbeat = { intervalMs: 50, timeoutMs: 500 }
  return transports.map((transport) => {
    const e = createElection({
      transport,
      algorithm: majorityElection({ heartbeat }),
      members: ids,
    })
    closers.unshift(() => e.close())
    return e
  })
}

const rejection = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** Every member follows the same leader, as its own view says. */
async function agreed(elections: Election<unknown>[]): Promise<LeaderView> {
  const first = await elections[0]!.waitForLeader(WAIT)
  for (let i = 0; i < 200; i++) {
    const views = elections.map((e) => `${e.leader()}@${e.term()}`)
    if (views.every((v) => v === views[0]) && elections[0]!.leader() !== undefined) {
      return { leader: elections[0]!.leader()!, term: elections[0]!.term() }
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no agreement after ${JSON.stringify(first)}`)
}

describe('createElection: transferLeadership and observe', () => {
  it('hands over to the target, which every member then follows; observe yields each leader in order', async () => {
    const elections = await group()
    const before = await agreed(elections)
    const leader = elections.find((e) => e.self === before.leader)!
    const follower = elections.find((e) => e.self !== before.leader)!
    const seen: LeaderView[] = []
    const abort = new AbortController()
    const watching = (async () => {
      for await (const view of follower.observe({ signal: abort.signal })) seen.push(view)
    })()

    const to = ids.find((id) => id !== before.leader)! as NodeId
    const after = await leader.transferLeadership(to, WAIT)
    expect(after.leader).toBe(to)
    expect(after.term).toBeGreaterThan(before.term)
    expect(await agreed(elections)).toEqual(after)

    // And back: each transfer is one more leader, in a higher term.
    const target = elections.find((e) => e.self === to)!
    const back = await target.transferLeadership(before.leader, WAIT)
    expect(back.leader).toBe(before.leader)
    expect(await agreed(elections)).toEqual(back)

    abort.abort()
    await watching
    expect(seen).toEqual([before, after, back])
  })

  it('typed errors: not leader, unknown target, a transfer in progress, aborted', async () => {
    const elections = await group()
    const view = await agreed(elections)
    const leader = elections.find((e) => e.self === view.leader)!
    const follower = elections.find((e) => e.self !== view.leader)!
    const e1 = await rejection(follower.transferLeadership(leader.self))
    expect(isSdError(e1, 'ERR_ELECTION_NOT_LEADER')).toBe(true)
    const e2 = await rejection(leader.transferLeadership('n9'))
    expect(isSdError(e2, 'ERR_ELECTION_UNKNOWN_TARGET')).toBe(true)
    // To itself: nothing to do.
    expect(await leader.transferLeadership(leader.self)).toEqual(view)
    const aborted = new AbortController()
    aborted.abort('changed my mind')
    const e3 = await rejection(leader.transferLeadership(follower.self, { signal: aborted.signal }))
    expect(isSdError(e3, 'ERR_ELECTION_ABORTED')).toBe(true)
    // The first transfer is under way until the target leads: a second one is refused.
    const first = leader.transferLeadership(follower.self, WAIT)
    const e4 = await rejection(leader.transferLeadership(follower.self))
    expect(isSdError(e4, 'ERR_ELECTION_TRANSFER_IN_PROGRESS')).toBe(true)
    expect((await first).leader).toBe(follower.self)
  })

  it('observe ends on close, with the current leader first', async () => {
    const elections = await group()
    const view = await agreed(elections)
    const e = elections[0]!
    const seen: LeaderView[] = []
    const watching = (async () => {
      for await (const v of e.observe()) seen.push(v)
    })()
    await new Promise((r) => setTimeout(r, 20))
    await e.close()
    await watching
    expect(seen[0]).toEqual(view)
    // Observing a closed handle ends at once.
    const after = await e.observe().next()
    expect(after.done).toBe(true)
  })
})
