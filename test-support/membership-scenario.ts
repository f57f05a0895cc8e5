/**
 * The real-process membership scenario (membership-netns.test.ts judges it, the benchmark
 * `election.membership.real.*` times it): six hosts in network namespaces on one bridge,
 * nftables dropping `lossPercent` of the packets entering each, membership-worker.ts on each.
 * Five founders elect; n6 joins; a founder that does not lead leaves gracefully; n6 is killed
 * with SIGKILL and removed on SWIM's verdict; it comes back under its old id with its membership
 * state gone (a new incarnation) and joins again; then a quiet spell. Every wait is bounded; the
 * processes are killed (by pid) and the namespaces deleted whatever happens.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeId } from '@sd/transport'
import { machineNow } from './machine-clock.js'
import {
  agreedMembers,
  factsOf,
  leaderOf,
  type Member,
  spawnMember,
  swimMembers,
  waitUntil,
} from './membership-procs.js'
import type { MembershipWorkerConfig } from './membership-worker.js'
import { createNetnsHosts, type NetnsHosts } from './netns-hosts.js'
import { killAll, type Worker } from './processes.js'

export const FOUNDERS = ['n1', 'n2', 'n3', 'n4', 'n5']
export const JOINER = 'n6'

export interface ScenarioOptions {
  /** Namespace tag and the bridge's third octet: unique per user. */
  tag: string
  subnet: number
  port: number
  lossPercent: number
  heartbeat: { intervalMs: number; timeoutMs: number }
  swim: { periodMs: number; probeTimeoutMs: number }
  retryMs: number
  /** The bound on each wait. */
  stepMs: number
}

export interface ScenarioRun {
  /** Every process, in start order (founders, the joiner, its second incarnation `n6'`). */
  members: Member[]
  leaver: Member
  joiner: Member
  rejoined: Member
  /** The agreed views the scenario makes, in order. */
  sequence: NodeId[][]
  /** The leader all agreed on just before the rejoin, and after the quiet spell. */
  before: { leader: NodeId; term: number } | undefined
  after: { leader: NodeId; term: number } | undefined
  /** When the parent asked the leave and sent the SIGKILL (the workers' clock). */
  leaveAt: number
  killAt: number
  /** How long each wait took, ms (the parent's polling included). */
  waits: Record<string, number>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const same = (a: readonly NodeId[] | undefined, b: readonly NodeId[]) =>
  a !== undefined && a.length === b.length && a.every((id, i) => id === b[i])

export async function runMembershipScenario(o: ScenarioOptions): Promise<ScenarioRun> {
  const ids = [...FOUNDERS, JOINER]
  const workers: Worker[] = []
  const all: Member[] = []
  let net: NetnsHosts | undefined
  const dir = mkdtempSync(join(tmpdir(), `sd-${o.tag}-`))
  try {
    net = createNetnsHosts(o.tag, ids.length, o.subnet)
    net.loss(o.lossPercent)
    const hosts = net
    const peers = Object.fromEntries(ids.map((id, i) => [id, `${hosts.addresses[i]}:${o.port}`]))
    const configOf = (id: string): MembershipWorkerConfig => ({
      id,
      host: hosts.addresses[ids.indexOf(id)]!,
      port: o.port,
      peers,
      founders: FOUNDERS,
      heartbeat: o.heartbeat,
      swim: o.swim,
      retryMs: o.retryMs,
      storage: join(dir, `${id}.json`),
    })
    const start = (id: string, label = id) => {
      const m = spawnMember(configOf(id), hosts.exec(ids.indexOf(id)), workers, label)
      all.push(m)
      return m
    }
    const running = () => all.filter((m) => m.worker.exitCode === undefined)
    /** Processes meant to exit (the leaver, the killed one): any other exit fails the run at once. */
    const exiting = new Set<Member>()
    const guard = () => {
      const gone = all.find((m) => m.worker.exitCode !== undefined && !exiting.has(m))
      if (gone) throw new Error(`${gone.label} exited (${gone.worker.exitCode}) unexpectedly`)
    }
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
    const waits: Record<string, number> = {}
    const timed = async (what: string, done: () => boolean) => {
      const from = performance.now()
      const checked = () => {
        guard()
        return done()
      }
      await waitUntil(checked, what, o.stepMs)
      waits[what] = Math.round(performance.now() - from)
    }

    // View 1: the founders, and a leader among them.
    for (const id of FOUNDERS) start(id)
    await timed('founders elect', () => agreeOn(FOUNDERS)() && oneLeader() !== undefined)

    // View 2: the joiner, through the founders.
    const joiner = start(JOINER)
    const six = [...FOUNDERS, JOINER]
    await timed('join', agreeOn(six))

    // View 3: a founder that does not lead leaves, in order, and exits 0.
    const leaderNow = oneLeader()?.leader
    const leaver = all.find((m) => FOUNDERS.includes(m.label) && m.label !== leaderNow)!
    exiting.add(leaver)
    const leaveAt = machineNow()
    leaver.worker.proc.stdin!.write('leave\n')
    const afterLeave = six.filter((id) => id !== leaver.label)
    await timed('leave', () => leaver.worker.exitCode !== undefined && agreeOn(afterLeave)())

    // View 4: the joiner killed; SWIM declares it dead and the leader removes it.
    exiting.add(joiner)
    const killAt = machineNow()
    joiner.worker.proc.kill('SIGKILL')
    await waitUntil(() => joiner.worker.exitCode !== undefined, 'the SIGKILL', o.stepMs)
    const afterKill = afterLeave.filter((id) => id !== JOINER)
    await timed('removal', agreeOn(afterKill))
    // Every SWIM view has dropped it too, so no late verdict removes its next incarnation.
    await timed('SWIM removal', () => running().every((m) => !swimMembers(m)?.includes(JOINER)))

    // View 5: it comes back under its old id, its membership state gone (the rest, such as a
    // term it stored, kept): a removed member joins again as a new incarnation.
    const before = oneLeader()
    const file = join(dir, `${JOINER}.json`)
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown> }
    const kept = Object.keys(doc.entries).filter((k) => !k.startsWith('membership/'))
    doc.entries = Object.fromEntries(kept.map((k) => [k, doc.entries[k]]))
    writeFileSync(file, `${JSON.stringify(doc)}\n`)
    const rejoined = start(JOINER, `${JOINER}'`)
    await timed('rejoin', () => agreeOn(afterLeave)() && leaderOf(rejoined) !== undefined)
    // Long enough for a disturbance to show: three detection timeouts.
    await sleep(3 * o.heartbeat.timeoutMs)
    const after = oneLeader()

    for (const m of running()) m.worker.proc.stdin!.end()
    await waitUntil(
      () => all.every((m) => m.worker.exitCode !== undefined),
      'every process exits',
      o.stepMs,
    )
    const sequence = [FOUNDERS, six, afterLeave, afterKill, afterLeave]
    return {
      members: all,
      leaver,
      joiner,
      rejoined,
      sequence,
      before,
      after,
      leaveAt,
      killAt,
      waits,
    }
  } catch (e) {
    // What each process last said, to tell a lost message from a refused one.
    for (const m of all) {
      const tail = factsOf(m)
        .slice(-12)
        .map((f) => `${f.proto} ${JSON.stringify(f.event)}`)
      console.error(`${m.label} (exit ${m.worker.exitCode}):\n  ${tail.join('\n  ')}`)
    }
    throw e
  } finally {
    await killAll(workers).finally(() => {
      net?.destroy()
      rmSync(dir, { recursive: true, force: true })
    })
  }
}
