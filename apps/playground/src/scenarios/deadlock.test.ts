import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'
import { MAX_LATENCY_MS } from './deadlock/run.js'

function sd(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

function json(args: string[]): { code: number; out: Record<string, unknown> } {
  const { code, out } = sd('run', ...args, '--json')
  return { code, out: JSON.parse(out) }
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]

interface Check {
  everDeadlocked: boolean
  phantoms: unknown[]
  late: number
  unresolved: unknown[] | null
  unreportedVictims: unknown[]
}

interface DeadlockResult {
  deadlocked: Array<number | string>
  onCycle: Array<number | string>
  cycles: Array<Array<number | string>>
  reports: number
  victim: number | string | null
  victims: Array<number | string>
  finished: Array<number | string>
  aborted: Array<number | string>
  check: Check
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The cycle, turned to start at its smallest process. */
const rotated = (cycle: number[]) => {
  const at = cycle.indexOf(Math.min(...cycle))
  return [...cycle.slice(at), ...cycle.slice(0, at)]
}

describe('deadlock scenarios', () => {
  it('sd list shows them', () => {
    const { code, out } = sd('list')
    expect(code).toBe(0)
    for (const name of ['deadlock-cmh', 'deadlock-centralized', 'deadlock-prevention'])
      expect(out).toMatch(new RegExp(`^\\s*${name}\\b`, 'm'))
  })

  it('deadlock-cmh finds the cycle across every site, aborts the youngest, the others finish (several seeds and sizes)', () => {
    for (const n of [2, 4, 7])
      for (const seed of SEEDS) {
        const { code, out } = json(['deadlock-cmh', '--n', String(n), '--seed', String(seed)])
        const result = out.result as DeadlockResult & { outsider: number }
        expect(code).toBe(0)
        expect(out.violations).toEqual([])
        // The outsider waits into the cycle: deadlocked in the AND model, not on the cycle.
        expect(result.outsider).toBe(n + 1)
        expect(result.deadlocked).toEqual(range(1, n + 1))
        expect(result.onCycle).toEqual(range(1, n))
        expect(result.cycles.map((c) => rotated(c as number[]))).toEqual([range(1, n)])
        expect(result.reports).toBeGreaterThanOrEqual(1)
        expect(result.victim).toBe(n)
        expect(result.victims).toEqual([n])
        expect(result.aborted).toEqual([n])
        expect(result.finished).toEqual([...range(1, n - 1), n + 1])
        expect(result.check).toMatchObject({
          everDeadlocked: true,
          phantoms: [],
          unresolved: null,
          unreportedVictims: [],
        })
        // Two initiators of one cycle may both see their probe return: a report made after the
        // first abort landed is late (one made while the abort was on its way is not).
        expect(result.check.late).toBeLessThan(result.reports)
        const messages = out.messages as { byType: Record<string, number> }
        expect(messages.byType.probe).toBeGreaterThanOrEqual(n)
        expect(messages.byType.verify).toBeGreaterThanOrEqual(n)
        expect(messages.byType.abort ?? 0).toBeLessThanOrEqual(result.reports)
      }
  })

  it('deadlock-cmh draws probes in the texts notation (initiator, sender, receiver)', () => {
    const { code, out } = sd('run', 'deadlock-cmh', '--width', '200')
    expect(code).toBe(0)
    // Process 4 blocks last and closes the cycle: its probe goes round 4 → 1 → 2 → 3 → 4.
    for (const probe of ['(4, 4, 1)', '(4, 1, 2)', '(4, 2, 3)', '(4, 3, 4)'])
      expect(out).toContain(`probe ${probe}`)
    expect(out).toMatch(/★ DEADLOCK (\d → ){4}/)
    expect(out).toMatch(/^victims: 4; finished: 1, 2, 3, 5; aborted: 4$/m)
  })

  it('deadlock-centralized dismisses the phantom, then resolves the real deadlock (several seeds)', () => {
    for (const n of [3, 4, 6])
      for (const seed of SEEDS) {
        const { code, out } = json([
          'deadlock-centralized',
          '--n',
          String(n),
          '--seed',
          String(seed),
        ])
        const result = out.result as DeadlockResult & {
          coordinator: number
          phantomsDismissed: Array<{ t: number; cycle: string[] }>
          withoutConfirmation: {
            reports: Array<{ cycle: Array<string | number>; victim: string | number }>
            phantoms: Array<{ cycle: string[] }>
            aborted: Array<string | number>
          }
        }
        expect(code).toBe(0)
        expect(out.violations).toEqual([])
        expect(result.coordinator).toBe(1)
        // The phantom A → B → A: collected, not confirmed, nobody aborted for it.
        expect(result.phantomsDismissed.map((p) => [...p.cycle].sort())).toEqual([['A', 'B']])
        expect(result.deadlocked).toEqual(range(1, n))
        expect(result.cycles.map((c) => rotated(c as number[]))).toEqual([range(1, n)])
        expect(result.victim).toBe(n)
        expect(result.aborted).toEqual([n])
        expect(result.finished).toEqual([...range(1, n - 1), 'A', 'B'])
        expect(result.check).toMatchObject({ phantoms: [], unresolved: null, late: 0 })
        // Without the confirmation round the same merge is declared and B dies for nothing.
        expect(result.withoutConfirmation.phantoms.map((p) => [...p.cycle].sort())).toEqual([
          ['A', 'B'],
        ])
        expect(result.withoutConfirmation.reports[0]).toMatchObject({ victim: 'B' })
        expect(result.withoutConfirmation.aborted).toEqual([n, 'B'])
        const messages = out.messages as { byType: Record<string, number> }
        expect(messages.byType.confirm).toBeGreaterThan(0)
        expect(messages.byType.probe).toBeUndefined()
      }
  })

  it('deadlock-prevention: under both rules no deadlock, every process finishes, aborts restart (several seeds)', () => {
    for (const n of [2, 4, 8])
      for (const seed of SEEDS) {
        const { code, out } = json([
          'deadlock-prevention',
          '--n',
          String(n),
          '--seed',
          String(seed),
        ])
        const result = out.result as DeadlockResult & {
          rules: string[]
          byRule: Record<
            string,
            DeadlockResult & {
              startMs: number
              endMs: number
              aborts: number
              restarts: number
              longestCycleMs: number
              messages: { total: number; byType: Record<string, number> }
            }
          >
        }
        expect(code).toBe(0)
        expect(out.violations).toEqual([])
        expect(result.rules).toEqual(['wait-die', 'wound-wait'])
        expect(result).toMatchObject({ deadlocked: [], cycles: [], victim: null, victims: [] })
        expect(result.finished).toEqual(range(1, n))
        const waitDie = result.byRule['wait-die']!
        const woundWait = result.byRule['wound-wait']!
        for (const rule of [waitDie, woundWait]) {
          expect(rule.finished).toEqual(range(1, n))
          expect(rule.deadlocked).toEqual([])
          expect(rule.aborts).toBeGreaterThan(0)
          expect(rule.restarts).toBe(rule.aborts)
          expect(rule.check).toMatchObject({ phantoms: [], unresolved: null })
        }
        // Wound-wait runs after wait-die, on the same sites.
        expect(woundWait.startMs).toBeGreaterThan(waitDie.endMs)
        // Wait-die never lets a cycle form; wound-wait's last only while a wound is in flight.
        expect(waitDie.onCycle).toEqual([])
        expect(waitDie.check.everDeadlocked).toBe(false)
        expect(waitDie.messages.byType.wound).toBeUndefined()
        expect(woundWait.messages.byType['lock-die']).toBeUndefined()
        // The wound's way to the holder's home, then the release's to the lock's site.
        expect(woundWait.longestCycleMs).toBeLessThanOrEqual(2 * MAX_LATENCY_MS)
        const total = (out.messages as { total: number }).total
        expect(waitDie.messages.total + woundWait.messages.total).toBe(total)
      }
  })

  it('deadlock-prevention draws each rule alone with --proto', () => {
    const whole = sd('run', 'deadlock-prevention', '--width', '200')
    const woundWait = sd('run', 'deadlock-prevention', '--width', '200', '--proto', 'wound-wait')
    expect(woundWait.code).toBe(0)
    expect(whole.out).toContain('wait-die:lock-die')
    expect(woundWait.out).toContain('wound-wait:wound')
    expect(woundWait.out).not.toContain('wait-die:lock')
  })

  it('refuses --crash: the resource manager assumes sites that do not fail', () => {
    for (const name of ['deadlock-cmh', 'deadlock-centralized', 'deadlock-prevention']) {
      const { code, err } = sd('run', name, '--crash', '1')
      expect(code).toBe(2)
      expect(err).toMatch(new RegExp(`^sd: ${name} does not take --crash`))
    }
  })
})
