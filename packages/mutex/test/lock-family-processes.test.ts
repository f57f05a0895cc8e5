import { fileURLToPath } from 'node:url'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { freePorts, spawnScript, type Worker } from '../../../test-support/processes.js'
import { checkMutualExclusion } from '../src/check.js'
import { type Entry, entriesOf, holdingEvents, mostAtOnce } from './support/family-lines.js'

// The lock family between five OS processes over UDP on loopback: createMutex's read-write lock
// and counting semaphore over centralized() with leases, a holder killed inside its section, and
// one stopped (SIGSTOP) past its lease. Every process stamps its lines with CLOCK_MONOTONIC, so
// the parent judges all of them together with the all-nodes checker.
const script = fileURLToPath(new URL('./support/family-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const LEASE_MS = 1500
const LIMIT = 3
/**
 * The faulty entry's section: the parent's signal has this long to land inside it. It costs no
 * time: the kill comes at once, and a stop lasts longer than it.
 */
const HOLD_MS = 2000
const IDS = ['w1', 'w2', 'w3', 'w4', 'w5']

const workers: Worker[] = []
afterEach(() => {
  // SIGKILL ends a stopped process too.
  for (const w of workers.splice(0)) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
})

type Role = { mode: 'shared' | 'exclusive' } | { take: number; limit: number }

interface Family {
  name: string
  roles: Record<string, Role>
  /** Killed inside its section (never w1, the coordinator: no failover without an election). */
  killed: string
  /** Stopped inside its section past its lease. */
  paused: string
  /** Whether `during` (others' entries while `victim` was stopped) needed the victim's lease over. */
  neededVictimGone: (victim: Entry, during: Entry[]) => boolean
  /** How many held at once at most, where holding together is the point of the primitive. */
  together: (entries: Entry[]) => number
}

const readWrite: Family = {
  name: 'read-write lock (writers w2, w3; readers w1, w4, w5)',
  roles: {
    w1: { mode: 'shared' },
    w2: { mode: 'exclusive' },
    w3: { mode: 'exclusive' },
    w4: { mode: 'shared' },
    w5: { mode: 'shared' },
  },
  killed: 'w4',
  paused: 'w2',
  // The paused holder is a writer: nobody holds beside it.
  neededVictimGone: (_victim, during) => during.length > 0,
  together: (entries) =>
    mostAtOnce(
      entries.filter((e) => e.granted === 'shared'),
      () => 1,
    ),
}

const semaphore: Family = {
  name: `semaphore of ${LIMIT} permits (w2, w4 take 2; w1, w3, w5 take 1)`,
  roles: Object.fromEntries(
    IDS.map((id) => [id, { take: id === 'w2' || id === 'w4' ? 2 : 1, limit: LIMIT }]),
  ),
  killed: 'w2',
  paused: 'w4',
  neededVictimGone: (victim, during) => mostAtOnce(during, (e) => e.take) + victim.take > LIMIT,
  together: (entries) => mostAtOnce(entries, () => 1),
}

const count = (w: Worker, word: string) => w.lines.filter((l) => l.startsWith(`${word} `)).length
const now = () => process.hrtime.bigint()

/** Five workers in their roles, w1 coordinating, told to go; `hold` lengthens one entry's section. */
async function startGroup(family: Family, iterations: number, hold?: { id: string; at: number }) {
  const ports = await freePorts(IDS.length)
  const peers = Object.fromEntries(IDS.map((id, i) => [id, ports[i]!]))
  const group = IDS.map((id, i) => {
    const at = id === hold?.id ? { holdAt: hold.at, holdMs: HOLD_MS } : {}
    const config = { id, port: ports[i], peers, coordinator: 'w1', leaseMs: LEASE_MS, iterations }
    return spawnScript(script, packageDir, { ...config, ...family.roles[id], ...at }, workers)
  })
  await pollUntil(
    () => group.every((w) => w.lines.includes('READY') || w.exitCode !== undefined),
    'five workers READY',
    120_000,
  )
  for (const w of group) expect(w.exitCode, `${w.id} exited before READY`).toBeUndefined()
  for (const w of group) w.proc.stdin!.write('go\n')
  return group
}

/** Waits until every live worker is DONE, tells them to exit, and waits for their exits. */
async function finish(group: Worker[]) {
  await pollUntil(
    () => group.every((w) => w.lines.includes('DONE') || w.exitCode !== undefined),
    'every worker DONE',
    120_000,
  )
  for (const w of group) if (w.exitCode === undefined) w.proc.stdin!.end('exit\n')
  await pollUntil(() => group.every((w) => w.exitCode !== undefined), 'workers exited', 60_000)
}

/**
 * Judges every process's entries together: each granted as its role asked, and the holdings
 * [ENTER, ACT] of all processes pass the checker (no writer beside anyone, permits within the
 * limit, tokens rising). Returns the entries.
 */
function judge(family: Family, group: Worker[]): Entry[] {
  const entries = group.flatMap(entriesOf)
  for (const e of entries) {
    const role = family.roles[e.node]!
    if ('mode' in role) expect(e.granted, `${e.node} token ${e.token}`).toBe(role.mode)
    else
      expect([e.granted, e.take, e.of], `${e.node} token ${e.token}`).toEqual([
        'permits',
        role.take,
        role.limit,
      ])
  }
  let base = entries[0]!.enter // the earliest ENTER (bigints: no Math.min)
  for (const e of entries) if (e.enter < base) base = e.enter
  expect(checkMutualExclusion(holdingEvents(entries, base)).violations).toEqual([])
  if (family === semaphore) expect(mostAtOnce(entries, (e) => e.take)).toBeLessThanOrEqual(LIMIT)
  return entries
}

/** A process that ran all its entries and acted in each (none lost), and exited cleanly. */
function expectEveryAct(w: Worker, iterations: number) {
  expect(w.exitCode, w.id).toBe(0)
  expect(count(w, 'ACT'), w.id).toBe(iterations)
  expect(count(w, 'LOST') + count(w, 'ERROR'), w.id).toBe(0)
}

describe('the judge of the family test', () => {
  const entry = (
    node: string,
    granted: Entry['granted'],
    take: number,
    from: number,
    to: number,
  ) => ({
    node,
    token: from,
    granted,
    take,
    of: take === 0 ? 0 : LIMIT,
    enter: BigInt(from),
    act: BigInt(to),
  })

  it('finds a writer beside a reader, and permits above the limit', () => {
    const rw = [entry('a', 'exclusive', 0, 1, 10), entry('b', 'shared', 0, 5, 6)]
    expect(checkMutualExclusion(holdingEvents(rw, 0n)).violations).toHaveLength(1)
    const readers = [entry('a', 'shared', 0, 1, 10), entry('b', 'shared', 0, 5, 6)]
    expect(checkMutualExclusion(holdingEvents(readers, 0n)).violations).toEqual([])
    const permits = [entry('a', 'permits', 2, 1, 10), entry('b', 'permits', 2, 5, 6)]
    expect(checkMutualExclusion(holdingEvents(permits, 0n)).violations).toHaveLength(1)
    expect(mostAtOnce(permits, (e) => e.take)).toBe(4)
  })
})

describe.each([readWrite, semaphore])('$name between five processes over UDP', (family) => {
  it('every process runs its 40 entries, judged together: safe, and some holders held at once', async () => {
    const group = await startGroup(family, 40)
    await finish(group)
    for (const w of group) expectEveryAct(w, 40)
    const entries = judge(family, group)
    // The primitive let several processes in at once (not one at a time).
    expect(family.together(entries)).toBeGreaterThanOrEqual(2)
  })

  it('a holder killed by SIGKILL inside its section: its lease runs out, and every survivor finishes', async () => {
    const iterations = 30
    const at = 3 + Math.floor(Math.random() * 5) // the entry during which it dies
    const group = await startGroup(family, iterations, { id: family.killed, at })
    const victim = group.find((w) => w.id === family.killed)!
    await pollUntil(
      () => count(victim, 'ENTER') >= at || victim.exitCode !== undefined,
      `${victim.id} entering for the ${at}th time`,
      120_000,
    )
    const killedAt = now()
    victim.proc.kill('SIGKILL')
    await finish(group)
    expect(victim.exitCode).toBeNull() // killed, not exited
    const last = entriesOf(victim).at(-1)!
    expect(entriesOf(victim)).toHaveLength(at)
    // It died inside its section (had the kill come late, it would have acted before it).
    expect(
      last.act,
      `${victim.id} acted at ${last.act} before the kill at ${killedAt}`,
    ).toBeUndefined()
    for (const w of group) if (w !== victim) expectEveryAct(w, iterations)
    judge(family, group)
  })

  it('a holder stopped by SIGSTOP past its lease: others get in meanwhile, and once resumed it does not act', async () => {
    const iterations = 30
    const at = 3 + Math.floor(Math.random() * 4)
    const group = await startGroup(family, iterations, { id: family.paused, at })
    const victim = group.find((w) => w.id === family.paused)!
    await pollUntil(
      () => count(victim, 'ENTER') >= at || victim.exitCode !== undefined,
      `${victim.id} entering for the ${at}th time`,
      120_000,
    )
    const stoppedAt = now()
    victim.proc.kill('SIGSTOP')
    const entered = () =>
      group
        .filter((w) => w !== victim)
        .flatMap(entriesOf)
        .filter((e) => e.enter > stoppedAt)
    // Stopped 2.5 leases at least, and until the others took what its lease held.
    const stopNs = BigInt(2.5 * LEASE_MS * 1e6)
    const held = entriesOf(victim)[at - 1]!
    await pollUntil(
      () => now() - stoppedAt >= stopNs && family.neededVictimGone(held, entered()),
      `others entering where ${victim.id}'s lease was, while it is stopped`,
      60_000,
    )
    const during = entered()
    const resumedAt = now()
    victim.proc.kill('SIGCONT')
    await finish(group)
    expect(family.neededVictimGone(held, during)).toBe(true)

    const mine = entriesOf(victim)[at - 1]!
    expect(
      mine.act,
      `${victim.id} acted at ${mine.act}: stopped at ${stoppedAt}, resumed at ${resumedAt}`,
    ).toBeUndefined()
    expect(mine.lost?.code).toBe('ERR_LEASE_LOST')
    expect(mine.lost!.at).toBeGreaterThan(resumedAt)
    // Then it goes on: every other entry of its loop acted.
    expect(victim.exitCode).toBe(0)
    expect(count(victim, 'ACT')).toBe(iterations - 1)
    expect(count(victim, 'LOST')).toBe(1)
    for (const w of group) if (w !== victim) expectEveryAct(w, iterations)
    judge(family, group)
  })
})
