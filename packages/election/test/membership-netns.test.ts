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
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { createNetnsHosts, type NetnsHosts } from '../../../test-support/netns-hosts.js'
import type { Worker } from '../../../test-support/processes.js'
import { checkElection } from '../src/check.js'
import { checkViews } from '../src/membership/check.js'
import {
  agreedMembers,
  type Fact,
  factsOf,
  leaderOf,
  type Member,
  ofProto,
  spawnMember,
  swimMembers,
  waitUntil,
} from './support/membership-procs.js'
import type { MembershipWorkerConfig } from './support/membership-worker.js'
import { netnsSkip } from './support/netns-group.js'

const PORT = 47_200
const LOSS_PERCENT = 5
const FOUNDERS = ['n1', 'n2', 'n3', 'n4', 'n5']
const JOINER = 'n6'
/** Generous: two cores shared with other work; a missed heartbeat must not look like a crash. */
const HEARTBEAT = { intervalMs: 100, timeoutMs: 1500 }
const SWIM = { periodMs: 250, probeTimeoutMs: 100 }
/** Every wait is bounded; the whole run takes about half a minute on an idle machine. */
const STEP_MS = 90_000

const unavailable = netnsSkip('the membership test in namespaces')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const same = (a: readonly NodeId[] | undefined, b: readonly NodeId[]) =>
  a !== undefined && a.length === b.length && a.every((id, i) => id === b[i])

describe.skipIf(unavailable !== undefined)(
  'agreed membership with SWIM and the majority election, real processes in namespaces',
  () => {
    it('a join, a graceful leave, a SIGKILL removal and a rejoin under the old id: one view sequence, one leader per term', async () => {
      const ids = [...FOUNDERS, JOINER]
      const workers: Worker[] = []
      const members: Member[] = []
      let net: NetnsHosts | undefined
      const dir = mkdtempSync(join(tmpdir(), 'sd-memns-'))
      try {
        net = createNetnsHosts('sdm', ids.length, 214)
        net.loss(LOSS_PERCENT)
        const hosts = net
        const peers = Object.fromEntries(ids.map((id, i) => [id, `${hosts.addresses[i]}:${PORT}`]))
        const configOf = (id: string): MembershipWorkerConfig => ({
          id,
          host: hosts.addresses[ids.indexOf(id)]!,
          port: PORT,
          peers,
          founders: FOUNDERS,
          heartbeat: HEARTBEAT,
          swim: SWIM,
          retryMs: 250,
          storage: join(dir, `${id}.json`),
        })
        const start = (id: string, label = id) =>
          spawnMember(configOf(id), hosts.exec(ids.indexOf(id)), workers, label)
        const all = members
        all.push(...FOUNDERS.map((id) => start(id)))
        const running = () => all.filter((m) => m.worker.exitCode === undefined)
        const agreeOn = (members: NodeId[]) => () =>
          running().every((m) => same(agreedMembers(m), members))
        const oneLeader = () => {
          const seen = running().map(leaderOf)
          const first = seen[0]
          return first !== undefined &&
            seen.every((v) => v?.leader === first.leader && v.term === first.term)
            ? first
            : undefined
        }
        const times: Record<string, number> = {}
        const timed = async (what: string, done: () => boolean) => {
          const from = performance.now()
          await waitUntil(done, what, STEP_MS)
          times[what] = Math.round(performance.now() - from)
        }

        // View 1: the founders, and a leader among them.
        await timed('founders elect', () => agreeOn(FOUNDERS)() && oneLeader() !== undefined)

        // View 2: the joiner, through the founders.
        const joiner = start(JOINER)
        all.push(joiner)
        const six = [...FOUNDERS, JOINER]
        await timed('join', agreeOn(six))

        // View 3: a founder that does not lead leaves, in order, and exits 0.
        const leaderNow = oneLeader()?.leader
        const leaver = all.find((m) => FOUNDERS.includes(m.label) && m.label !== leaderNow)!
        leaver.worker.proc.stdin!.write('leave\n')
        const afterLeave = six.filter((id) => id !== leaver.label)
        await timed('leave', () => leaver.worker.exitCode === 0 && agreeOn(afterLeave)())

        // View 4: the joiner killed; SWIM declares it dead and the leader removes it.
        joiner.worker.proc.kill('SIGKILL')
        await waitUntil(() => joiner.worker.exitCode !== undefined, 'the SIGKILL', STEP_MS)
        const afterKill = afterLeave.filter((id) => id !== JOINER)
        await timed('removal', agreeOn(afterKill))
        // Every SWIM view has dropped it too, so no late verdict removes its next incarnation.
        await waitUntil(
          () => running().every((m) => !swimMembers(m)?.includes(JOINER)),
          'SWIM views without the killed process',
          STEP_MS,
        )

        // View 5: it comes back under its old id, its membership state gone (the rest, such as a
        // term it stored, kept): a removed member joins again as a new incarnation.
        const before = oneLeader()
        expect(before, 'a leader before the rejoin').toBeDefined()
        const file = join(dir, `${JOINER}.json`)
        const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown> }
        const kept = Object.keys(doc.entries).filter((k) => !k.startsWith('membership/'))
        doc.entries = Object.fromEntries(kept.map((k) => [k, doc.entries[k]]))
        writeFileSync(file, `${JSON.stringify(doc)}\n`)
        const rejoined = start(JOINER, `${JOINER}'`)
        all.push(rejoined)
        await timed('rejoin', () => agreeOn(afterLeave)() && leaderOf(rejoined) !== undefined)
        // Long enough for a disturbance to show: three detection timeouts.
        await sleep(3 * HEARTBEAT.timeoutMs)
        const after = oneLeader()

        for (const m of running()) m.worker.proc.stdin!.end()
        await waitUntil(
          () => all.every((m) => m.worker.exitCode !== undefined),
          'every process exits',
          STEP_MS,
        )
        console.log(
          `membership in namespaces, ${LOSS_PERCENT}% loss, one run on a shared machine (ms): ${JSON.stringify(times)}`,
        )

        const facts: Fact[] = all.flatMap(factsOf)
        const membership = ofProto(facts, 'membership')
        const election = ofProto(facts, 'election')

        // One member list per view number, in order at each process, each acknowledged first.
        expect(checkViews(membership).violations).toEqual([])
        const views = new Map<number, NodeId[]>()
        for (const f of membership) {
          if (f.event.type === 'view')
            views.set(f.event.view as number, f.event.members as NodeId[])
        }
        const sequence = [FOUNDERS, six, afterLeave, afterKill, afterLeave]
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
            m === leaver
              ? from(1, 3)
              : m === joiner
                ? from(2, 3)
                : m === rejoined
                  ? [5]
                  : from(1, 5)
          // A process restarted nothing here: its views are seen once each (a node shows its current view again only on a restart).
          expect([...new Set(installed(m))], m.label).toEqual(expected)
        }
        expect(
          ofProto(factsOf(leaver), 'membership').filter((f) => f.event.type === 'left'),
        ).toMatchObject([{ event: { type: 'left', view: 3, reason: 'leave' } }])
        expect(leaver.worker.exitCode).toBe(0)
        expect(joiner.worker.exitCode).toBeNull() // killed by a signal
        expect(views.get(4)).not.toContain(JOINER)

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
      } catch (e) {
        // What each process last said, to tell a lost message from a refused one.
        for (const m of members) {
          const tail = factsOf(m)
            .slice(-12)
            .map((f) => `${f.proto} ${JSON.stringify(f.event)}`)
          console.log(`${m.label} (exit ${m.worker.exitCode}):\n  ${tail.join('\n  ')}`)
        }
        throw e
      } finally {
        for (const w of workers) {
          if (w.exitCode === undefined && w.proc.pid !== undefined) {
            try {
              process.kill(w.proc.pid, 'SIGKILL')
            } catch {}
          }
        }
        await waitUntil(
          () => workers.every((w) => w.exitCode !== undefined),
          'workers gone',
          30_000,
        ).catch(() => {})
        net?.destroy()
        rmSync(dir, { recursive: true, force: true })
      }
    })
  },
)
