/**
 * The run's history judged for linearizability per model (summary/linearizability.ts): the fixture
 * is a real recorded history with its leases (`pnpm cluster -- --n 3 --seconds 6 --loopback
 * --chaos pause-holder --seed 7 --history FILE`: n1 paused inside its critical section past its
 * lease, its late write fenced). Then the same history with a second holder or a stale read
 * injected, judged as `check-history` judges a file; and a real short run, judged by its summary,
 * its trace (`historyCheck`) and its history file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { checkHistoryFile, readHistoryFile } from '../src/check-history.js'
import type { Operation } from '../src/history.js'
import { checkLockHistory, lockHistory, withLeases } from '../src/lock-history.js'
import { formatSummary } from '../src/summary/format.js'
import {
  type HistoryCheckDocument,
  judgeHistories,
  linearizabilityViolations,
} from '../src/summary/linearizability.js'
import type { NodeEvent, Summary } from '../src/summary.js'
import { runCli } from './support/cli.js'

const fixture = fileURLToPath(
  new URL('fixtures/pause-holder-leases.history.jsonl', import.meta.url),
)
const recorded = readHistoryFile(fixture)
const dir = mkdtempSync(join(tmpdir(), 'sd-history-check-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const grants = () =>
  recorded
    .filter((o) => o.f === 'acquire' && o.outcome === 'ok')
    .sort((a, b) => a.completedAt! - b.completedAt!)

/** The history with the next grant after `i` moved into the holding of grant `i`: two holders. */
function twoHolders(i: number): { history: Operation[]; first: Operation; second: Operation } {
  const [first, next] = [grants()[i]!, grants()[i + 1]!]
  const second = {
    ...next,
    invokedAt: first.completedAt! + 0.1,
    completedAt: first.completedAt! + 0.2,
  }
  return { history: recorded.map((o) => (o === next ? second : o)), first, second }
}

describe('the recorded history', () => {
  it('is linearizable for the register and for the lock, the paused holder included', () => {
    expect(recorded.filter((o) => o.f === 'acquire' && o.leaseUntil !== undefined).length).toBe(
      grants().length,
    )
    const verdicts = judgeHistories(recorded, recorded[0]!.invokedAt)
    expect(verdicts.map((v) => [v.model, v.verdict])).toEqual([
      ['register', 'linearizable'],
      ['lock', 'linearizable'],
    ])
    expect(verdicts[1]!.operations).toBe(lockHistory(recorded).length)
    expect(linearizabilityViolations(verdicts)).toEqual([])
  })

  it('two holders are caught, and the sub-history is the two holdings (grants and releases)', () => {
    const { history, first, second } = twoHolders(10)
    expect(checkLockHistory(history).verdict).toBe('not-linearizable')
    const [register, lock] = judgeHistories(history, 0)
    expect(register!.verdict).toBe('linearizable')
    expect(lock!.verdict).toBe('not-linearizable')
    expect(lock!.minimal).toBe(true)
    // Each grant stands with its release (shrinking keeps a holding whole).
    const grants = lock!.counterexample!.filter((o) => o.label.includes(' acquire '))
    for (const o of lock!.counterexample!)
      if (!grants.includes(o)) expect(o.label).toMatch(/ release\(/)
    expect(grants.map((o) => [o.client, o.label.split(' until ')[0]])).toEqual([
      [`${first.node}#${first.pid}`, `${first.node}#${first.pid} acquire -> token ${first.token}`],
      [
        `${second.node}#${second.pid}`,
        `${second.node}#${second.pid} acquire -> token ${second.token}`,
      ],
    ])
    // On the run's clock (here origin 0: machine ms, to the µs), invocation to completion.
    const c = grants[1]!
    expect(c.completedAt! - c.invokedAt).toBeCloseTo(0.1, 3)
    expect(linearizabilityViolations([register!, lock!])).toEqual([
      expect.stringMatching(/^the lock history is not linearizable: .* stuck at .*acquire/),
    ])
  })

  it('a stale read is caught by the register, and shown by check-history with its sub-history', () => {
    const reads = recorded.filter((o) => o.f === 'read' && o.outcome === 'ok')
    const read = reads[reads.length - 5]!
    const stale = recorded.map((o) => (o === read ? { ...o, value: read.value! - 3 } : o))
    const file = join(dir, 'stale.history.jsonl')
    writeFileSync(file, stale.map((o) => `${JSON.stringify(o)}\n`).join(''))
    const r = checkHistoryFile(file, false)
    expect(r.code).toBe(1)
    expect(r.verdicts!.map((v) => v.verdict)).toEqual(['not-linearizable', 'linearizable'])
    const register = r.verdicts![0]!
    expect(
      register.counterexample!.some((o) => o.label.startsWith(`${read.node}#${read.pid} read`)),
    ).toBe(true)
    expect(r.text).toContain('register: not-linearizable')
    expect(r.text).toContain(`-> ${read.value! - 3}`)
    expect(checkHistoryFile(fixture, false).code).toBe(0)
    expect(checkHistoryFile(join(dir, 'missing.jsonl'), false).code).toBe(2)
  })

  it('the lease a holder knew: acquired, each renewal, cut short by lease-lost', () => {
    const acquire: Operation = {
      ...{ node: 'n1', pid: 1, op: 1, f: 'acquire', token: 7 },
      ...{ invokedAt: 0, completedAt: 5, outcome: 'ok' },
    }
    const ev = (t: number, e: Record<string, unknown>): NodeEvent => ({
      node: 'n1',
      t,
      p: 'lock',
      e,
    })
    const renewed = withLeases(
      [acquire],
      [
        ev(4, { type: 'acquired', token: 7, leaseMs: 1000 }),
        ev(300, { type: 'lease-renewed', token: 7, validForMs: 1000 }),
      ],
    )
    expect(renewed[0]!.leaseUntil).toBe(1300)
    const lost = withLeases(
      [acquire],
      [
        ev(4, { type: 'acquired', token: 7, leaseMs: 1000 }),
        ev(200, { type: 'lease-lost', token: 7, reason: 'revoked' }),
      ],
    )
    expect(lost[0]!.leaseUntil).toBe(200)
    // Without a known lease the acquire is pending: it granted nothing anyone relied on.
    expect(lockHistory([acquire])[0]!.completedAt).toBeUndefined()
  })
})

describe('a real short run', () => {
  it('is judged linearizable per model, in its summary, its trace and its history file', async () => {
    const trace = join(dir, 'run.trace.json')
    const history = join(dir, 'run.history.jsonl')
    const o = await runCli([
      ...['--n', '3', '--seconds', '5', '--loopback', '--chaos', 'pause-holder', '--json'],
      ...['--trace', trace, '--history', history],
    ])
    // On a failure, what the summary found (its violations and errors), not only the log.
    if (o.code !== 0) console.error(o.stderr, o.stdout.trim().split('\n').at(-1))
    expect(o.code).toBe(0)
    const s = JSON.parse(o.stdout.trim().split('\n').at(-1)!) as Summary
    expect(s.linearizability.map((v) => [v.model, v.verdict])).toEqual([
      ['register', 'linearizable'],
      ['lock', 'linearizable'],
    ])
    const [register, lock] = s.linearizability
    // Every read and write of the history is judged: those that ended ok, and the fenced or
    // unanswered ones (a busy machine times some out) that the register model also takes.
    const file = readHistoryFile(history)
    expect(register!.operations).toBe(file.filter((x) => x.f === 'read' || x.f === 'write').length)
    expect(register!.operations).toBeGreaterThanOrEqual(
      s.operations.okByKind.read + s.operations.okByKind.write,
    )
    expect(lock!.operations).toBeGreaterThan(0)
    expect(formatSummary(s)).toMatch(/lock history {7}linearizable \(\d+ operations/)

    const doc = JSON.parse(readFileSync(trace, 'utf8')) as { historyCheck: HistoryCheckDocument }
    expect(doc.historyCheck).toEqual({
      format: 'sd-history-check',
      version: 1,
      models: s.linearizability,
    })
    expect(file.filter((x) => x.f === 'acquire' && x.outcome === 'ok').length).toBeGreaterThan(0)
    expect(
      file.filter((x) => x.f === 'acquire' && x.outcome === 'ok' && x.leaseUntil === undefined),
    ).toEqual([])

    // A second holder injected into the recorded file, judged back into the trace on its clock.
    const grants = file
      .filter((x) => x.f === 'acquire' && x.outcome === 'ok')
      .sort((a, b) => a.completedAt! - b.completedAt!)
    const [first, next] = [grants[2]!, grants[3]!]
    const edited = join(dir, 'two-holders.history.jsonl')
    const moved = {
      ...next,
      invokedAt: first.completedAt! + 0.1,
      completedAt: first.completedAt! + 0.2,
    }
    writeFileSync(edited, file.map((x) => `${JSON.stringify(x === next ? moved : x)}\n`).join(''))
    const out = join(dir, 'two-holders.trace.json')
    const r = checkHistoryFile(edited, false, { trace, out })
    expect(r.code).toBe(1)
    expect(r.text).toContain("ms on the trace's clock")
    const judged = JSON.parse(readFileSync(out, 'utf8')) as {
      historyCheck: HistoryCheckDocument
      events: unknown[]
    }
    expect(judged.events).toHaveLength((doc as unknown as { events: unknown[] }).events.length)
    const twoHolders = judged.historyCheck.models.find((m) => m.model === 'lock')!
    expect(twoHolders.verdict).toBe('not-linearizable')
    // Two holdings, the moved grant among them (which other one the shrinking keeps may vary),
    // each grant with its release if it had one.
    const heldBoth = twoHolders.counterexample!.filter((o) => o.label.includes(' acquire '))
    expect(heldBoth).toHaveLength(2)
    expect(twoHolders.counterexample!.length).toBeLessThanOrEqual(4)
    expect(twoHolders.counterexample!.map((o) => o.label).join('\n')).toContain(
      `token ${next.token}`,
    )
    // On the trace's clock: the first grant's `acquired` entry, just before its completion.
    const acquiredAt = (
      judged.events as Array<{
        type: string
        node?: string
        t: number
        event?: { proto: string; event: { type: string; token?: number } }
      }>
    ).find(
      (e) =>
        e.type === 'emit' &&
        e.node === first.node &&
        e.event?.event.type === 'acquired' &&
        e.event.event.token === first.token,
    )!.t
    // The moved grant was invoked 0.1 ms after the first grant completed, which follows its entry.
    const movedAt = twoHolders.counterexample!.find((o) =>
      o.label.includes(`token ${next.token}`),
    )!.invokedAt
    expect(movedAt - acquiredAt).toBeGreaterThanOrEqual(0.1)
    expect(movedAt - acquiredAt).toBeLessThan(1000)
    console.log(
      `real run: ${file.length} operations; ${s.linearizability.map((v) => `${v.model} ${v.operations} ops in ${v.checkMs} ms`).join(', ')}`,
    )
  })
})
