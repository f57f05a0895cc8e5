import { describe, expect, it } from 'vitest'
import { checkMutualExclusion } from '../src/check.js'

const acq = (node: string, t: number, token: number) => ({
  node,
  t,
  event: { type: 'acquired', resource: 'r', token },
})
const rel = (node: string, t: number, token: number) => ({
  node,
  t,
  event: { type: 'released', resource: 'r', token },
})

describe('checking mutual exclusion from a trace', () => {
  it('accepts turns that do not overlap, and reports the order of entry', () => {
    const v = checkMutualExclusion([acq('a', 1, 1), rel('a', 2, 1), acq('b', 2, 2), rel('b', 3, 2)])
    expect(v.violations).toEqual([])
    expect(v.order).toEqual({ r: ['a', 'b'] })
    expect(v.entries).toBe(2)
  })

  it('reports two holders, a token that goes backwards, and a release of what was not held', () => {
    const v = checkMutualExclusion([acq('a', 1, 5), acq('b', 2, 4), rel('c', 3, 9)])
    expect(v.violations).toHaveLength(3)
    expect(v.violations[0]).toContain('while a held it')
    expect(v.violations[1]).toContain('not above the previous 5')
    expect(v.violations[2]).toContain('did not hold')
  })

  it('a crash ends what the crashed node held', () => {
    expect(
      checkMutualExclusion([acq('a', 1, 1), acq('b', 5, 2)], [{ node: 'a', t: 4 }]).violations,
    ).toEqual([])
    expect(
      checkMutualExclusion([acq('a', 1, 1), acq('b', 5, 2)], [{ node: 'a', t: 6 }]).violations,
    ).toHaveLength(1)
  })
})

describe('after an overlap', () => {
  it('each holder still leaves through its own release: only the overlap is reported', () => {
    const v = checkMutualExclusion([acq('a', 1, 1), acq('b', 2, 2), rel('a', 3, 1), rel('b', 4, 2)])
    expect(v.violations).toHaveLength(1)
    expect(v.violations[0]).toContain('b acquired r (token 2) while a held it')
  })
})
