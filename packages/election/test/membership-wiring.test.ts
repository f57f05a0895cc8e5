import { describe, expect, it } from 'vitest'
import {
  electionToMembership,
  membershipToElection,
  membershipToSwim,
  swimToMembership,
} from '../src/index.js'

describe('the wiring maps between SWIM, the agreed membership and the majority election', () => {
  it("turns SWIM's dead verdict into a remove, and nothing else it says", () => {
    expect(
      swimToMembership({ type: 'member-left', node: 'n3', incarnation: 2, reason: 'dead' }),
    ).toEqual({ type: 'remove', id: 'n3' })
    // A graceful leave is the leaver's own request, not a removal by the others.
    expect(
      swimToMembership({ type: 'member-left', node: 'n3', incarnation: 2, reason: 'left' }),
    ).toBe(undefined)
    expect(swimToMembership({ type: 'suspect', node: 'n3', incarnation: 2 })).toBe(undefined)
    expect(swimToMembership({ type: 'member-left', node: {}, reason: 'dead' })).toBe(undefined)
  })

  it('passes an installed view to SWIM as admit and to the election as a view', () => {
    const view = { type: 'view', view: 4, members: ['n1', 'n2'] }
    expect(membershipToSwim(view)).toEqual({ type: 'admit', members: ['n1', 'n2'] })
    expect(membershipToElection(view)).toEqual({ type: 'view', view: 4, members: ['n1', 'n2'] })
    expect(membershipToSwim({ ...view, type: 'acknowledged' })).toBe(undefined)
  })

  it("turns the election's leader news and silent members into membership requests", () => {
    expect(electionToMembership({ type: 'leader', leader: 'n2', term: 3 })).toEqual({
      type: 'leader',
      leader: 'n2',
      term: 3,
    })
    expect(electionToMembership({ type: 'member-silent', node: 'n4' })).toEqual({
      type: 'remove',
      id: 'n4',
    })
  })
})
