import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { agreedLeader, checkElection } from '../src/check.js'
import { bestOf, compareCandidates } from '../src/contract.js'
import { heartbeatSettings } from '../src/detector/heartbeat.js'

const leader = (node: string, t: number, l: string, term: number) => ({
  node,
  t,
  event: { type: 'leader', leader: l, term },
})

describe('checkElection', () => {
  it('finds two leaders announced for one term, and terms that go back at a node', () => {
    const v = checkElection([
      leader('a', 1, 'c', 2),
      leader('b', 2, 'd', 2),
      leader('a', 3, 'd', 3),
      { node: 'a', t: 4, event: { type: 'leader-lost', term: 1 } },
    ])
    expect(v.violations).toEqual([
      { kind: 'two-leaders-in-term', term: 2, leaders: ['c', 'd'], t: 2 },
      { kind: 'term-went-back', node: 'a', from: 3, to: 1, t: 4 },
    ])
  })

  it('agreement: every live node follows the same leader in the same term at the end', () => {
    const events = [leader('a', 1, 'c', 2), leader('b', 1, 'c', 2), leader('c', 1, 'c', 2)]
    expect(agreedLeader(checkElection(events), ['a', 'b', 'c'])).toEqual({ leader: 'c', term: 2 })
    const lost = [...events, { node: 'b', t: 2, event: { type: 'leader-lost', term: 2 } }]
    expect(agreedLeader(checkElection(lost), ['a', 'b', 'c'])).toBeUndefined()
    const split = [...events, leader('b', 3, 'a', 3)]
    expect(agreedLeader(checkElection(split), ['a', 'b', 'c'])).toBeUndefined()
  })
})

describe('candidates', () => {
  it('priority first, then the higher id', () => {
    expect(bestOf([3, 7, 5])).toBe(7)
    const prio = (id: unknown) => (id === 3 ? 10 : 0)
    expect(bestOf([3, 7, 5], prio)).toBe(3)
    expect(compareCandidates(5, 7)).toBeLessThan(0)
    expect(compareCandidates('b', 'a')).toBeGreaterThan(0)
  })
})

describe('heartbeatSettings', () => {
  it('defaults to 100 ms and 5 intervals, and refuses a timeout under two intervals', () => {
    expect(heartbeatSettings()).toEqual({ intervalMs: 100, timeoutMs: 500 })
    expect(heartbeatSettings({ intervalMs: 50, timeoutMs: 100 })).toEqual({
      intervalMs: 50,
      timeoutMs: 100,
    })
    let error: unknown
    try {
      heartbeatSettings({ intervalMs: 100, timeoutMs: 150 })
    } catch (e) {
      error = e
    }
    expect(isSdError(error, 'ERR_INVALID_ARGUMENT')).toBe(true)
    expect(String((error as Error).message)).toMatch(/at least 2 x intervalMs/)
    expect(() => heartbeatSettings({ intervalMs: 0 })).toThrow(/positive/)
  })
})
