/**
 * The cluster's global checks on a recorded run of the lock before its fix (issue 19, finding 1).
 *
 * `fixtures/old-lock-minority-grant.trace.json` is the trace of
 *   pnpm --silent cluster -- --n 5 --seconds 30 --chaos pause-holder,partition,kill-leader \
 *     --fault-ms 4000 --seed 13 --json --trace t.json
 * run on commit 706ef1d (the lock wired to the election's `leader` events only) with this
 * summary, trimmed to the election's events up to 27.6 s, the lock's of 24.0 s..27.6 s (a release
 * whose entry is earlier left out) and the run's faults.
 * The partition at 24.5 s cuts n5 (leader and lock coordinator of term 7) off with n1; n5 steps
 * down (24.8 s), n4 is elected in term 8 (25.0 s) and grants T8 tokens; at 27.52 s n5, still
 * coordinator of term 7 in its own view, expires n2's old grant and grants itself T7#241 while n3
 * holds T8#38 with a valid lease. Per node, every token went up, so the summary of the time said
 * `ok: true`; across nodes, two valid leases overlap and a token goes backwards in entry order.
 */
import { readFileSync } from 'node:fs'
import { emitsOf, faultsOf, type TraceDocument } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { judgeTrace } from '../src/checks.js'
import { type NodeEvent, type RunRecord, summarize } from '../src/summary.js'

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/old-lock-minority-grant.trace.json', import.meta.url), 'utf8'),
) as TraceDocument

const VIOLATIONS = [
  'lock: t=27523.591: n5 acquired default (token T7#241) while n3 held it since t=27504.483 (token T8#38, lease valid until t=28504.483)',
  'lock: t=27523.591: n5 acquired default with token T7#241, not above the previous T8#38',
]

/** The run as the parent would have recorded it (times from 0, the trace's origin). */
function recordOf(doc: TraceDocument): RunRecord {
  const events: NodeEvent[] = []
  for (const p of ['election', 'lock'] as const) {
    for (const e of emitsOf(doc.events, p)) {
      events.push({ node: String(e.node), t: e.t, p, e: e.event as Record<string, unknown> })
    }
  }
  events.sort((a, b) => a.t - b.t)
  return {
    mode: 'netns',
    nodes: doc.nodes.map(String),
    seconds: 30,
    startedAt: 0,
    endedAt: 30_000,
    origin: 0,
    events,
    faults: [],
    faultEvents: faultsOf(doc.events),
    history: [],
    boots: [],
    store: { counter: 0, acknowledged: 0, newestToken: 0, fencingRejections: 0 },
    anomalies: [],
    messages: { sent: 0, delivered: 0, retransmissions: 0, resent: 0, dropped: 0 },
    nftDrops: { cut: 0, loss: 0 },
    clockSpreadMs: { start: undefined, end: undefined },
    errors: [],
  }
}

/** The fixture without the deposed coordinator's self-grant: what a correct lock would show. */
function withoutSelfGrant(doc: TraceDocument): TraceDocument {
  const selfGrant = 7 * 2 ** 32 + 241
  return {
    ...doc,
    events: doc.events.filter((e) => {
      if (e.type !== 'emit') return true
      const inner = (e.event as { event?: { token?: unknown } }).event
      return !(e.node === 'n5' && inner?.token === selfGrant)
    }),
  }
}

describe('the global checks on a run of the lock before its fix', () => {
  it('find the deposed coordinator granting under its old term', () => {
    expect(judgeTrace(fixture)).toEqual(VIOLATIONS)
  })

  it('make the summary fail, with the same violations', () => {
    const s = summarize(recordOf(fixture))
    expect(s.ok).toBe(false)
    expect(s.violations).toEqual(VIOLATIONS)
  })

  it('find nothing once the self-grant is taken out (the rest of the run was safe)', () => {
    expect(judgeTrace(withoutSelfGrant(fixture))).toEqual([])
    expect(summarize(recordOf(withoutSelfGrant(fixture))).ok).toBe(true)
  })
})
