/**
 * The election README's deployment, as real processes (examples/cluster-node.ts over UDP on
 * loopback, with a key and admission, the election counting over the agreed views): three
 * founders started in random order find each other, elect and lock; the leader is killed, the
 * others elect, the new leader reports it silent and removes it, and they go on locking; a fourth
 * process joins through the seeds and locks too; then they stop one by one (followers first, the
 * leader last), each leaving the group before it exits. Judged across all processes from their
 * lines: one member list per view number, each acknowledged by a majority of the view before
 * (`checkViews`), never two lock holders at once (`checkMutualExclusion`, CLOCK_MONOTONIC stamps),
 * every stopped process exits 0.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkViews } from '@sd/election'
import type { TimedEvent } from '@sd/transport'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, expect, it } from 'vitest'
import { freePorts, spawnScript, type Worker } from '../../../test-support/processes.js'
import { checkMutualExclusion } from '../src/index.js'

const script = fileURLToPath(new URL('../examples/cluster-node.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6

let workers: Worker[] = []
let dirs: string[] = []
afterEach(async (context) => {
  // On a failure, what each process said: the lines name the views, leaders and entries.
  if (context.task.result?.state === 'fail') {
    for (const w of workers) console.error(w.id, w.exitCode, w.lines.slice(-40).join('\n'))
  }
  for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
  await pollUntil(() => workers.every((w) => w.exitCode !== undefined), 'workers gone', 10_000)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  workers = []
  dirs = []
})

type Line = TimedEvent<{ type: string; [field: string]: unknown }>
const linesOf = (w: Worker): Line[] =>
  w.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line)
const eventsOf = (w: Worker, type: string) => linesOf(w).filter((l) => l.event.type === type)
const lastView = (w: Worker) => eventsOf(w, 'view').at(-1)?.event.members as string[] | undefined
const lastLeader = (w: Worker) => {
  const last = linesOf(w)
    .filter((l) => l.event.type === 'leader' || l.event.type === 'leader-lost')
    .at(-1)
  return last?.event.type === 'leader' ? `${last.event.leader}@${last.event.term}` : undefined
}

it('starts in any order, elects, locks, survives a killed leader, admits a joiner, stops one by one', async () => {
  const ids = ['n1', 'n2', 'n3', 'n4']
  const founders = ids.slice(0, 3)
  const ports = await freePorts(ids.length)
  const address = (id: string) => `127.0.0.1:${ports[ids.indexOf(id)]}`
  const dir = mkdtempSync(join(tmpdir(), 'sd-deploy-'))
  dirs.push(dir)
  const key = randomBytes(32).toString('hex')
  const byId = new Map<string, Worker>()
  const start = (id: string, seeds: string[]) => {
    const config = {
      id,
      port: ports[ids.indexOf(id)],
      founders,
      seeds: Object.fromEntries(seeds.map((s) => [s, address(s)])),
      key,
      dir,
    }
    byId.set(id, spawnScript(script, packageDir, config, workers))
  }
  const w = (id: string) => byId.get(id)!

  // 1. The founders, in random order, a little apart: some seeds are not up when a node starts.
  const order = [...founders].sort(() => Math.random() - 0.5)
  for (const id of order) {
    start(
      id,
      founders.filter((f) => f !== id),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const agreedLeader = (alive: string[]) => {
    const seen = alive.map((id) => lastLeader(w(id)))
    return seen[0] !== undefined && seen.every((s) => s === seen[0]) ? seen[0] : undefined
  }
  /** The leader `alive` all follow, once they agree (in one term). */
  const leaderOf = async (alive: string[]) => {
    await pollUntil(() => agreedLeader(alive) !== undefined, `one leader of ${alive}`, 10_000)
    return agreedLeader(alive)!.split('@')[0]!
  }
  await pollUntil(
    () =>
      agreedLeader(founders) !== undefined &&
      founders.some((id) => eventsOf(w(id), 'acquired').length > 0),
    'a leader all founders follow, and a first locked entry',
    20_000,
  )

  // 2. Kill the leader: the others elect, remove it from the view, and go on locking.
  const victim = agreedLeader(founders)!.split('@')[0]!
  const survivors = founders.filter((id) => id !== victim)
  w(victim).proc.kill('SIGKILL')
  const killedAt = monotonicMs()
  await pollUntil(
    () =>
      survivors.every((id) => {
        const view = lastView(w(id))
        return view !== undefined && !view.includes(victim)
      }) && survivors.some((id) => eventsOf(w(id), 'acquired').some((l) => l.t > killedAt)),
    `the survivors remove ${victim} and lock again`,
    20_000,
  )

  // The removal came from the new leader: it reported the victim silent (the election's own
  // acknowledgements are the failure detector), and the membership removed it.
  const remover = await leaderOf(survivors)
  expect(eventsOf(w(remover), 'member-silent').map((l) => l.event.node)).toContain(victim)

  // 3. A fourth process joins knowing only two seeds: the dead one and a follower. The leader
  //    learns its address from the view (its JOIN carried it), it learns the leader's from the
  //    leader's first datagram (admission).
  const leaderNow = await leaderOf(survivors)
  start('n4', [victim, ...survivors.filter((id) => id !== leaderNow)])
  const members = [...survivors, 'n4']
  await pollUntil(
    () =>
      members.every((id) => lastView(w(id))?.includes('n4')) &&
      eventsOf(w('n4'), 'acquired').length > 0,
    'n4 in every view, and locking',
    20_000,
  )
  // The joiner's own election follows the leader once a view has it (it counts the view): an
  // eventual property, not one bound to its first entry (a busy machine showed it a little later).
  await pollUntil(() => eventsOf(w('n4'), 'leader').length > 0, 'n4 follows a leader', 20_000)
  expect(eventsOf(w('n4'), 'leader').length).toBeGreaterThan(0)

  // 4. Stop one by one: the joiner, the follower, the leader last. Each leaves before it exits.
  const leader = await leaderOf(survivors)
  const shutdown = ['n4', ...survivors.filter((id) => id !== leader), leader]
  for (const [i, id] of shutdown.entries()) {
    w(id).proc.kill('SIGTERM')
    await pollUntil(() => w(id).exitCode !== undefined, `${id} exits`, 20_000)
    expect(w(id).exitCode, `${id} exit code`).toBe(0)
    const rest = shutdown.slice(i + 1)
    if (rest.length === 0) break
    // It left: a view without it was committed, and every remaining process installed it.
    expect(eventsOf(w(id), 'left').map((l) => l.event.reason)).toEqual(['leave'])
    await pollUntil(
      () => rest.every((other) => lastView(w(other))?.join() === [...rest].sort().join()),
      `the others install a view without ${id}`,
      10_000,
    )
  }

  // Judged across all processes.
  const all = ids.flatMap((id) => linesOf(w(id)))
  expect(checkViews(all).violations).toEqual([])
  const verdict = checkMutualExclusion(all, [{ node: victim, t: killedAt }])
  expect(verdict.violations).toEqual([])
  expect(all.filter((l) => l.event.type === 'fenced')).toEqual([])
  const counter = JSON.parse(readFileSync(join(dir, 'counter.json'), 'utf8'))
  const entries = all.filter((l) => l.event.type === 'acquired').length
  // Every entry wrote once, but for one the victim may have been killed in before it wrote.
  expect(counter.value).toBeGreaterThanOrEqual(entries - 1)
  expect(counter.value).toBeLessThanOrEqual(entries)
}, 90_000)
