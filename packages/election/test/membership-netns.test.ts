/**
 * The agreed membership between real processes: SWIM, the agreed view and the majority election
 * over it (membership-worker.ts), one process per network namespace on one bridge, over UDP, with
 * nftables dropping 5% of the packets entering every host. Five founders elect; a sixth joins; a
 * founder that does not lead leaves gracefully; the joiner is killed with SIGKILL and removed on
 * SWIM's verdict; it comes back under its old id (a new incarnation: its membership state gone, the
 * rest of its state file kept) and joins again. Judged from every process's trace: `checkViews` across
 * all of them, the view sequence, one leader per term, and the rejoin starting no election (the
 * leader before it leads the same term after). Needs root, `ip` and `nft`: skipped with a notice
 * where the machine lacks them, failed under SD_REQUIRE_ALL=1.
 */
import type { NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type Fact, factsOf, type Member, ofProto } from '../../../test-support/membership-procs.js'
import { JOINER, runMembershipScenario } from '../../../test-support/membership-scenario.js'
import { checkElection } from '../src/check.js'
import { checkViews } from '../src/membership/check.js'
import { netnsSkip } from './support/netns-group.js'

const LOSS_PERCENT = 5
/** Generous: two cores shared with other work; a missed heartbeat must not look like a crash. */
const HEARTBEAT = { intervalMs: 100, timeoutMs: 1500 }

const unavailable = netnsSkip('the membership test in namespaces')

describe.skipIf(unavailable !== undefined)(
  'agreed membership with SWIM and the majority election, real processes in namespaces',
  () => {
    it('a join, a graceful leave, a SIGKILL removal and a rejoin under the old id: one view sequence, one leader per term', async () => {
      const run = await runMembershipScenario({
        tag: 'sdm',
        subnet: 214,
        port: 47_200,
        lossPercent: LOSS_PERCENT,
        heartbeat: HEARTBEAT,
        swim: { periodMs: 250, probeTimeoutMs: 100 },
        retryMs: 250,
        // Every wait is bounded; the whole run takes about 15 s on an idle machine.
        stepMs: 90_000,
      })
      const { members: all, leaver, joiner, rejoined, sequence, before, after } = run
      console.log(
        `membership in namespaces, ${LOSS_PERCENT}% loss, one run on a shared machine (ms): ${JSON.stringify(run.waits)}`,
      )
      const facts: Fact[] = all.flatMap(factsOf)
      const membership = ofProto(facts, 'membership')
      const election = ofProto(facts, 'election')

      // One member list per view number, in order at each process, each acknowledged first.
      expect(checkViews(membership).violations).toEqual([])
      const views = new Map<number, NodeId[]>()
      for (const f of membership) {
        if (f.event.type === 'view') views.set(f.event.view as number, f.event.members as NodeId[])
      }
      expect([...views.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5])
      expect([...views.values()]).toEqual(sequence)
      // Each process installed every view from its first on, none skipped, none extra.
      const installed = (m: Member) =>
        ofProto(factsOf(m), 'membership')
          .filter((f) => f.event.type === 'view')
          .map((f) => f.event.view as number)
      const from = (first: number, last = 5) =>
        Array.from({ length: last - first + 1 }, (_, i) => first + i)
      for (const m of all) {
        const expected =
          m === leaver ? from(1, 3) : m === joiner ? from(2, 3) : m === rejoined ? [5] : from(1, 5)
        // A process restarted nothing here: its views are seen once each (a node shows its current view again only on a restart).
        expect([...new Set(installed(m))], m.label).toEqual(expected)
      }
      expect(
        ofProto(factsOf(leaver), 'membership').filter((f) => f.event.type === 'left'),
      ).toMatchObject([{ event: { type: 'left', view: 3, reason: 'leave' } }])
      expect(leaver.worker.exitCode).toBe(0)
      expect(joiner.worker.exitCode).toBeNull() // killed by a signal
      expect(views.get(4)).not.toContain(JOINER)
      expect(before, 'a leader before the rejoin').toBeDefined()

      // Exactly one leader per term across every process.
      expect(checkElection(election).violations).toEqual([])
      const leadersByTerm = new Map<number, Set<NodeId>>()
      for (const f of election) {
        if (f.event.type !== 'leader') continue
        const term = f.event.term as number
        leadersByTerm.set(
          term,
          (leadersByTerm.get(term) ?? new Set()).add(f.event.leader as NodeId),
        )
      }
      for (const [term, leaders] of leadersByTerm)
        expect([...leaders], `term ${term}`).toHaveLength(1)

      // The rejoin deposed nobody: the same leader in the same term, and the rejoined process
      // never stood (PreVote: not even asked whether it could win).
      expect(after).toEqual(before)
      const stood = ofProto(factsOf(rejoined), 'election').filter((f) =>
        ['pre-candidate', 'candidate'].includes(f.event.type),
      )
      expect(stood).toEqual([])
    })
  },
)
