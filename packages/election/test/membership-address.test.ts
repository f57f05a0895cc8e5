/** A joiner's address travels with its JOIN into the agreed views, so members can reach it. */
import type { NodeId } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import type { MembershipRequest } from '../src/membership/events.js'
import { agreedMembership } from '../src/membership/index.js'
import { MAX_ADDRESS_LENGTH, parseMessage } from '../src/membership/messages.js'

const link = { latency: { kind: 'uniform' as const, min: 1, max: 10 } }
const leaderIs = (leader: NodeId, term: number): MembershipRequest => ({
  type: 'leader',
  leader,
  term,
})

describe('agreedMembership addresses', () => {
  it('a view lists the address each member joined with, until it leaves; every node has the same', () => {
    const ids = [1, 2, 3, 4, 5]
    // 4 joins with an address, 5 without; both through 2, which is not the leader (3).
    const node = (self: NodeId) =>
      agreedMembership({
        founders: [1, 2, 3],
        seeds: [2],
        ...(self === 4 ? { address: '10.0.0.4:4000' } : {}),
      })(self)
    const { events } = runInSim(ids, node, {
      seed: 1,
      net: link,
      until: 3_000,
      plan: (net, group) => {
        for (const id of ids) group.request(id, leaderIs(3, 1))
        net.at(1_500, () => group.request(4, { type: 'leave' }))
      },
    })
    const views = ofType(events, 'view')
    const byNumber = new Map<number, unknown>()
    for (const v of views) {
      const seen = byNumber.get(v.event.view)
      if (seen === undefined) byNumber.set(v.event.view, v.event.addresses)
      else expect(v.event.addresses).toEqual(seen)
    }
    const at3 = views.filter((v) => v.node === 3).map((v) => [v.event.members, v.event.addresses])
    expect(at3).toEqual([
      [[1, 2, 3], undefined],
      ...((at3[1]![0] as NodeId[]).includes(4)
        ? [
            [[1, 2, 3, 4], [{ id: 4, address: '10.0.0.4:4000' }]],
            [[1, 2, 3, 4, 5], [{ id: 4, address: '10.0.0.4:4000' }]],
          ]
        : [
            [[1, 2, 3, 5], undefined],
            [[1, 2, 3, 4, 5], [{ id: 4, address: '10.0.0.4:4000' }]],
          ]),
      // 4 left: its address goes with it.
      [[1, 2, 3, 5], undefined],
    ])
  })

  it('refuses an address that is not a bounded string, in a JOIN and as an option', () => {
    expect(parseMessage({ type: 'join', address: 'x'.repeat(MAX_ADDRESS_LENGTH) })).toEqual({
      type: 'join',
      address: 'x'.repeat(MAX_ADDRESS_LENGTH),
    })
    expect(typeof parseMessage({ type: 'join', address: 'x'.repeat(MAX_ADDRESS_LENGTH + 1) })).toBe(
      'string',
    )
    expect(typeof parseMessage({ type: 'join', address: 7 })).toBe('string')
    expect(typeof parseMessage({ type: 'change', op: 'join', id: 4, address: '' })).toBe('string')
    expect(
      typeof parseMessage({
        type: 'install',
        record: { view: 2, members: [1], joined: [], left: [], addresses: [{ id: 1 }] },
      }),
    ).toBe('string')
    expect(() => agreedMembership({ founders: [1], address: '' })).toThrow(/address/)
  })
})
