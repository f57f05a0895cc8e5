import { describe, expect, it } from 'vitest'
import type { Operation } from '../src/history.js'
import { formatSummary } from '../src/summary/format.js'
import { leaderAt, leadershipsOf } from '../src/summary/leaders.js'
import { type FaultRecord, type NodeEvent, type RunRecord, summarize } from '../src/summary.js'

const T = 2 ** 32
const T0 = 1_000_000

const leader = (node: string, t: number, who: string, term: number): NodeEvent => ({
  node,
  t: T0 + t,
  p: 'election',
  e: { type: 'leader', leader: who, term },
})
const lock = (node: string, t: number, type: string, token: number): NodeEvent => ({
  node,
  t: T0 + t,
  p: 'lock',
  // Entries carry their lease, as the centralized lock's do.
  e: { type, resource: 'default', token, ...(type === 'acquired' ? { leaseMs: 1000 } : {}) },
})

/** An increment acknowledged to `node`. */
const write = (
  node: string,
  value: number,
  from: number,
  to: number,
  token: number,
): Operation => ({
  node,
  pid: 1,
  op: value,
  f: 'write',
  token,
  value,
  invokedAt: T0 + from,
  completedAt: T0 + to,
  outcome: 'ok',
})

/** n3 leads term 1; killed at 1000; n2 leads term 2, followed by a majority at 1600. */
function baseRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const events: NodeEvent[] = [
    leader('n3', 0, 'n3', 1),
    leader('n1', 5, 'n3', 1),
    leader('n2', 6, 'n3', 1),
    lock('n3', 10, 'granted', T + 1),
    lock('n1', 12, 'acquired', T + 1),
    lock('n1', 40, 'released', T + 1),
    lock('n3', 41, 'granted', T + 2),
    lock('n2', 43, 'acquired', T + 2),
    lock('n2', 70, 'released', T + 2),
    leader('n2', 1500, 'n2', 2),
    leader('n1', 1600, 'n2', 2),
    lock('n2', 3100, 'granted', 2 * T + 1),
    lock('n1', 3102, 'acquired', 2 * T + 1),
    lock('n1', 3130, 'released', 2 * T + 1),
    leader('n3', 3600, 'n2', 2),
  ]
  const faults: FaultRecord[] = [
    { kind: 'kill-leader', t: T0 + 1000, until: T0 + 3000, targets: ['n3'] },
    { kind: 'partition', targets: [], skipped: 'needs network namespaces (root, ip, nft)' },
  ]
  return {
    mode: 'netns',
    nodes: ['n1', 'n2', 'n3'],
    seconds: 10,
    startedAt: T0,
    endedAt: T0 + 10_000,
    origin: T0,
    events,
    faults,
    faultEvents: [
      { t: T0 + 1000, type: 'crash', node: 'n3' },
      { t: T0 + 3500, type: 'restart', node: 'n3' },
    ],
    history: [
      write('n1', 1, 20, 30, T + 1),
      write('n2', 2, 50, 60, T + 2),
      write('n1', 3, 3110, 3120, 2 * T + 1),
    ],
    boots: [
      { node: 'n1', t: T0 - 500, stored: { term: 0, boots: 0, lockTerm: 0 } },
      { node: 'n2', t: T0 - 500, stored: { term: 0, boots: 0, lockTerm: 0 } },
      { node: 'n3', t: T0 - 500, stored: { term: 0, boots: 0, lockTerm: 0 } },
      { node: 'n3', t: T0 + 3500, stored: { term: 1, boots: 1, lockTerm: 1 } },
    ],
    store: { counter: 3, acknowledged: 3, newestToken: 2 * T + 1, fencingRejections: 1 },
    anomalies: [],
    messages: { sent: 100, delivered: 98, retransmissions: 3, resent: 0, dropped: 1 },
    nftDrops: { cut: 0, loss: 0 },
    clockSpreadMs: { start: 40, end: 0.5 },
    errors: [],
    ...overrides,
  }
}

describe('leaderships', () => {
  it('counts a leadership from when a majority follows it', () => {
    const run = baseRun()
    const l = leadershipsOf(run.events, 3)
    expect(l).toEqual([
      { term: 1, leader: 'n3', t: T0 + 5 },
      { term: 2, leader: 'n2', t: T0 + 1600 },
    ])
    expect(leaderAt(l, T0 + 1000)?.leader).toBe('n3')
    expect(leaderAt(l, T0 + 2000)?.leader).toBe('n2')
    expect(leaderAt(l, T0)).toBeUndefined()
  })
})

describe('summarize', () => {
  it('a clean run: counter, terms, one failover, lock recovery, durable state, no violation', () => {
    const s = summarize(
      baseRun({
        // The nodes started before the workload: the run's clock (every atMs) is 4 s ahead of it.
        origin: T0 - 4000,
        faults: [
          ...baseRun().faults,
          { kind: 'kill-holder', t: T0 + 50, until: T0 + 2000, targets: ['n2'], token: T + 2 },
        ],
      }),
    )
    expect(s.ok).toBe(true)
    expect(s.violations).toEqual([])
    expect(s).toMatchObject({
      nodes: 3,
      seconds: 10,
      counter: 3,
      acknowledged: 3,
      fencingRejections: 1,
      terms: 2,
      maxTerm: 2,
      entries: 3,
      failoverMs: [600],
      lockRecoveryMs: [3052],
    })
    expect(s.failovers).toEqual([
      { cause: 'kill-leader', atMs: 5000, from: 'n3', fromTerm: 1, to: 'n2', toTerm: 2, ms: 600 },
    ])
    expect(s.workloadStartMs).toBe(4000)
    expect(s.leaders).toEqual([
      { term: 1, leader: 'n3', atMs: 4005 },
      { term: 2, leader: 'n2', atMs: 5600 },
    ])
    expect(s.restarts).toEqual([{ node: 'n3', atMs: 7500, storedTerm: 1, termBefore: 1 }])
    expect(s.chaos[0]).toEqual({
      kind: 'kill-leader',
      atMs: 5000,
      durationMs: 2000,
      targets: ['n3'],
    })
    expect(s.chaos[1]).toMatchObject({
      kind: 'partition',
      skipped: expect.stringContaining('namespaces'),
    })
    expect(JSON.parse(JSON.stringify(s))).toEqual(s)
    expect(formatSummary(s)).toContain('counter            3 = 3 acknowledged')
    expect(formatSummary(s)).toContain('n3 (term 1) -> n2 (term 2) in 600 ms')
  })

  it('a failover that never completes is listed without a time', () => {
    const run = baseRun()
    run.events = run.events.filter((e) => !(e.p === 'election' && e.e.term === 2))
    run.events = run.events.filter((e) => !(e.p === 'lock' && (e.e.token as number) > 2 * T))
    const s = summarize(run)
    expect(s.failoverMs).toEqual([])
    expect(s.failovers[0]).toMatchObject({ from: 'n3', to: undefined, ms: null })
  })

  it('a fault that misses the leader is no failover; loss and a clock step never are', () => {
    const s = summarize(
      baseRun({
        faults: [
          { kind: 'kill-holder', t: T0 + 50, until: T0 + 900, targets: ['n1'], token: T + 1 },
          { kind: 'loss', t: T0 + 60, until: T0 + 900, targets: ['n1', 'n2', 'n3'] },
          { kind: 'clock-step', t: T0 + 950, until: T0 + 990, targets: ['n3'], deltaMs: -500 },
        ],
      }),
    )
    expect(s.failovers).toEqual([])
  })

  it('two leaders in one term', () => {
    const run = baseRun()
    run.events.push(leader('n1', 1700, 'n1', 2))
    expect(summarize(run).violations).toContain(
      'election: t=1700: two leaders in term 2: n2 and n1',
    )
  })

  it('a term that goes back at a node', () => {
    const run = baseRun()
    run.events.push(leader('n1', 1700, 'n3', 1))
    expect(summarize(run).violations).toContain(
      'election: t=1700: term went back at n1: from 2 to 1',
    )
  })

  it('a fencing token that goes backwards across nodes, or at a coordinator', () => {
    const run = baseRun()
    run.events.push(lock('n2', 3200, 'acquired', T + 7), lock('n2', 3210, 'released', T + 7))
    run.events.push(lock('n2', 3300, 'granted', T + 9))
    const v = summarize(run).violations
    // n2 entered after n1 had entered with a newer token: backwards in entry order, globally.
    expect(v).toContain(
      'lock: t=3200: n2 acquired default with token T1#7, not above the previous T2#1',
    )
    expect(v).toContain('fencing token went backwards at coordinator n2: granted T1#9 after T2#1')
  })

  it('two holders at once, on different nodes', () => {
    const run = baseRun()
    // n2 enters while n1 holds T2#1 (n1 releases at 3130).
    run.events.push(
      lock('n2', 3120, 'acquired', 2 * T + 2),
      lock('n2', 3140, 'released', 2 * T + 2),
    )
    expect(summarize(run).violations).toEqual([
      'lock: t=3120: n2 acquired default (token T2#2) while n1 held it since t=3102 (token T2#1, lease valid until t=4102)',
    ])
  })

  it('a holder that was paused or killed holds nothing from then on', () => {
    const run = baseRun()
    run.events.push(
      lock('n2', 3120, 'acquired', 2 * T + 2),
      lock('n2', 3140, 'released', 2 * T + 2),
    )
    run.faultEvents.push({ t: T0 + 3110, type: 'pause', node: 'n1' })
    run.faultEvents.push({ t: T0 + 3125, type: 'resume', node: 'n1', backlog: 0 })
    expect(summarize(run).violations).toEqual([])
  })

  it('a token of a term nobody was elected in', () => {
    const run = baseRun()
    run.events.push(lock('n2', 3300, 'acquired', 5 * T + 1))
    expect(summarize(run).violations).toContain(
      'n2 entered with T5#1, of a term no leader was elected in',
    )
  })

  it('a counter that differs from the acknowledged increments, and the store anomalies', () => {
    const s = summarize(
      baseRun({
        store: { counter: 2, acknowledged: 3, newestToken: 2 * T + 1, fencingRejections: 0 },
        anomalies: ['n2 wrote 2 with token 8589934593 over 2: an increment was lost'],
      }),
    )
    expect(s.ok).toBe(false)
    expect(s.violations).toEqual([
      'counter 2 differs from the 3 acknowledged increments',
      'n2 wrote 2 with token 8589934593 over 2: an increment was lost',
      'counter 2 lost increments: 3 writes were acknowledged to the nodes',
    ])
    expect(formatSummary(s)).toContain('counter            2 ≠ 3 acknowledged')
  })

  it('durable state lost across a restart', () => {
    const run = baseRun()
    run.boots[3] = { node: 'n3', t: T0 + 3500, stored: { term: 0, boots: 0, lockTerm: 0 } }
    expect(summarize(run).violations).toEqual([
      'durable state lost at n3: restarted with term 0 after it reported term 1',
    ])
  })

  it('a node that failed makes the run fail without being a safety violation', () => {
    const s = summarize(baseRun({ errors: ['n2 exited on its own (code 1)'] }))
    expect(s.violations).toEqual([])
    expect(s.ok).toBe(false)
  })

  it('a broken time base fails the run, reported before the checks that rest on it', () => {
    const broken = 'time base: n2 -> n1 delivered a message 11.600 ms before it was sent (t=120.6)'
    const s = summarize(
      baseRun({
        timeBase: [broken],
        events: [...baseRun().events, lock('n2', 20, 'acquired', T + 9)],
      }),
    )
    expect(s.ok).toBe(false)
    expect(s.violations[0]).toBe(broken)
    expect(s.violations.length).toBeGreaterThan(1)
    expect(summarize(baseRun({ timeBase: [] })).ok).toBe(true)
  })

  it('the history judged per model: linearizable, or a violation with its minimal sub-history', () => {
    const clean = summarize(baseRun())
    expect(clean.linearizability.map((v) => [v.model, v.verdict, v.operations])).toEqual([
      ['register', 'linearizable', 3],
      ['lock', 'linearizable', 0],
    ])
    expect(formatSummary(clean)).toContain(
      '  register history   linearizable (3 operations, checked in',
    )
    // n2 reads 0 after n1's write of 1 completed: a stale read.
    const stale: Operation = {
      ...{ node: 'n2', pid: 1, op: 9, f: 'read', token: T + 2, value: 0 },
      ...{ invokedAt: T0 + 40, completedAt: T0 + 42, outcome: 'ok' },
    }
    const run = baseRun()
    const s = summarize({ ...run, history: [...run.history, stale] })
    const [register] = s.linearizability
    expect(register!.verdict).toBe('not-linearizable')
    expect(register!.counterexample!.map((o) => [o.node, o.invokedAt, o.completedAt])).toEqual([
      ['n1', 20, 30],
      ['n2', 40, 42],
    ])
    expect(s.ok).toBe(false)
    expect(s.violations).toEqual([
      expect.stringMatching(/^the register history is not linearizable: .*stuck at n2#1 read/),
    ])
    const text = formatSummary(s)
    expect(text).toContain('register history   NOT linearizable: ')
    expect(text).toContain('      [20, 30] n1#1 write(1) with token 4294967297 -> 1')
    expect(text).toContain('      [40, 42] n2#1 read with token 4294967298 -> 0')
  })

  it('an interrupted run is summed up as partial, until the interrupt', () => {
    const full = summarize(baseRun())
    expect(full.partial).toBeUndefined()
    expect(formatSummary(full)).toMatch(/^Summary \(/)
    const run = baseRun({ interrupted: 'SIGINT', origin: T0 - 4000 })
    const s = summarize(run)
    expect(s.partial).toEqual({ signal: 'SIGINT', atMs: 14_000 })
    expect(formatSummary(s).split('\n')[0]).toBe(
      'Partial summary (netns, 3 nodes, interrupted by SIGINT at 14.0 s, 10.0 s into the 10 s workload): all checks held until then',
    )
  })
})
