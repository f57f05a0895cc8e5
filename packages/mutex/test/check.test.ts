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

/** The global form: faults as the simulator's trace records them (`faultsOf`), and leases. */
describe('checking leases across nodes, with the faults of the run', () => {
  const leased = (node: string, t: number, token: number, leaseMs: number) => ({
    node,
    t,
    event: { type: 'acquired', resource: 'r', token, leaseMs },
  })
  const renewed = (node: string, t: number, token: number, validForMs: number) => ({
    node,
    t,
    event: { type: 'lease-renewed', resource: 'r', token, validForMs },
  })
  const lost = (node: string, t: number, token: number) => ({
    node,
    t,
    event: { type: 'lease-lost', resource: 'r', token, reason: 'expired' },
  })
  const pause = (node: string, t: number) => ({ t, type: 'pause' as const, node })
  const crash = (node: string, t: number) => ({ t, type: 'crash' as const, node })

  it('a lease ends at its expiry: entering after it is fine, before it is an overlap', () => {
    expect(checkMutualExclusion([leased('a', 0, 1, 100), acq('b', 100, 2)]).violations).toEqual([])
    const v = checkMutualExclusion([leased('a', 0, 1, 100), acq('b', 99, 2)]).violations
    expect(v).toEqual([
      't=99: b acquired r (token 2) while a held it since t=0 (token 1, lease valid until t=100)',
    ])
  })

  it('a renewal moves the expiry to validForMs after it; a renewal of an ended lease does not revive it', () => {
    const renewedOnce = [leased('a', 0, 1, 100), renewed('a', 80, 1, 100)]
    expect(checkMutualExclusion([...renewedOnce, acq('b', 170, 2)]).violations).toHaveLength(1)
    expect(checkMutualExclusion([...renewedOnce, acq('b', 180, 2)]).violations).toEqual([])
    const late = [leased('a', 0, 1, 100), renewed('a', 120, 1, 100), acq('b', 150, 2)]
    expect(checkMutualExclusion(late).violations).toEqual([])
  })

  it('lease-lost ends a lease, and its released later is not a stray', () => {
    const v = checkMutualExclusion([
      leased('a', 0, 1, 100),
      lost('a', 10, 1),
      acq('b', 20, 2),
      rel('a', 30, 1),
    ])
    expect(v.violations).toEqual([])
  })

  it("the holder's pause ends its lease (a leaseless holding stays); a crash ends either", () => {
    expect(
      checkMutualExclusion([leased('a', 0, 1, 100), acq('b', 50, 2)], [pause('a', 40)]).violations,
    ).toEqual([])
    expect(
      checkMutualExclusion([acq('a', 0, 1), acq('b', 50, 2)], [pause('a', 40)]).violations,
    ).toHaveLength(1)
    expect(
      checkMutualExclusion([acq('a', 0, 1), acq('b', 50, 2)], [crash('a', 40)]).violations,
    ).toEqual([])
    // Another node's pause, a partition, a clock step end nothing.
    const others = [
      pause('c', 10),
      { t: 11, type: 'partition' as const, groups: [['a'], ['b']] },
      { t: 12, type: 'clock-step' as const, node: 'a', deltaMs: -500 },
    ]
    expect(
      checkMutualExclusion([leased('a', 0, 1, 100), acq('b', 50, 2)], others).violations,
    ).toHaveLength(1)
  })

  it('a pause or crash at the time of an entry comes before it', () => {
    expect(
      checkMutualExclusion([leased('a', 0, 1, 100), acq('b', 40, 2)], [pause('a', 40)]).violations,
    ).toEqual([])
  })

  it('tokens must rise in entry order across nodes, whoever entered (a deposed coordinator)', () => {
    const v = checkMutualExclusion([
      leased('a', 0, 2 ** 32 * 2 + 1, 100),
      lost('a', 100, 2 ** 32 * 2 + 1),
      leased('b', 150, 2 ** 32 + 7, 100),
    ]).violations
    expect(v).toEqual([
      `t=150: b acquired r with token ${2 ** 32 + 7}, not above the previous ${2 ** 33 + 1}`,
    ])
  })
})

describe('shared entries and permits, judged across nodes', () => {
  const shared = (node: string, t: number, token: number) => ({
    node,
    t,
    event: { type: 'acquired', resource: 'r', token, mode: 'shared' },
  })
  const permit = (node: string, t: number, token: number, take: number, of = 3) => ({
    node,
    t,
    event: { type: 'acquired', resource: 'r', token, permits: { take, of } },
  })

  it('readers hold together, in any order of their tokens; a writer waits for all of them', () => {
    const ok = checkMutualExclusion([
      acq('w', 1, 1),
      rel('w', 2, 1),
      shared('a', 3, 3),
      shared('b', 4, 2),
      rel('a', 5, 3),
      rel('b', 6, 2),
      acq('w', 7, 4),
    ])
    expect(ok.violations).toEqual([])
    const early = checkMutualExclusion([
      shared('a', 1, 2),
      shared('b', 2, 3),
      rel('a', 3, 2),
      acq('w', 4, 4),
    ])
    expect(early.violations).toHaveLength(1)
    expect(early.violations[0]).toContain('an exclusive entry beside another holder')
  })

  it('a reader beside a writer, a reader token below the last writer, and a writer token below a reader are reported', () => {
    expect(checkMutualExclusion([acq('w', 1, 5), shared('a', 2, 6)]).violations[0]).toContain(
      'a shared entry beside a non-shared holder',
    )
    const stale = checkMutualExclusion([acq('w', 1, 5), rel('w', 2, 5), shared('a', 3, 4)])
    expect(stale.violations).toEqual([
      't=3: a acquired r with token 4, not above the previous exclusive 5',
    ])
    const below = checkMutualExclusion([shared('a', 1, 7), rel('a', 2, 7), acq('w', 3, 6)])
    expect(below.violations[0]).toContain('not above the previous 7')
  })

  it('permits: never more out than the limit, one limit per resource, no token twice', () => {
    const ok = checkMutualExclusion([
      permit('a', 1, 1, 2),
      permit('b', 2, 2, 1),
      rel('a', 3, 1),
      permit('c', 4, 3, 2),
    ])
    expect(ok.violations).toEqual([])
    expect(
      checkMutualExclusion([permit('a', 1, 1, 2), permit('b', 2, 2, 2)]).violations[0],
    ).toContain('4 permits out of 3')
    expect(
      checkMutualExclusion([permit('a', 1, 1, 1), permit('b', 2, 2, 1, 4)]).violations[0],
    ).toContain('another kind or limit')
    expect(checkMutualExclusion([permit('a', 1, 1, 1), permit('b', 2, 1, 1)]).violations).toEqual([
      't=2: b acquired r with token 1, entered before',
    ])
  })
})
