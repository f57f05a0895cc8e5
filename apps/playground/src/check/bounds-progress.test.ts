import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'

function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err }
}

const PROGRESS = /^check: [\d,]+ states, [\d,]+ transitions, \d+ s \([\d,]+ states\/s\)$/

describe('sd check --max-states and --progress', () => {
  it('--max-states stops the stateful search there, reported NOT exhausted', () => {
    const stopped = sd(
      'check',
      'mutex-ricart-agrawala',
      '--no-liveness',
      '--max-states',
      '40',
      '--json',
    )
    expect(stopped.code, stopped.err.join('\n')).toBe(0)
    const json = JSON.parse(stopped.out)
    expect(json.bounds.maxStates).toBe(40)
    expect(json.states).toBe(40)
    expect(json.exhausted).toBe(false)
    // With room for the whole space: exhausted, and under the bound.
    const whole = JSON.parse(
      sd('check', 'mutex-ricart-agrawala', '--no-liveness', '--max-states', '1000000', '--json')
        .out,
    )
    expect(whole.exhausted).toBe(true)
    expect(whole.states).toBeGreaterThan(40)
    const text = sd('check', 'mutex-ricart-agrawala', '--no-liveness', '--max-states', '40')
    expect(text.out).toContain('NOT exhausted')
  })

  it('--progress prints a line every N states to stderr, and leaves --json one object', () => {
    const run = sd('check', 'mutex-ricart-agrawala', '--no-liveness', '--progress', '25', '--json')
    expect(run.code).toBe(0)
    const json = JSON.parse(run.out)
    expect(run.err).toHaveLength(Math.floor(json.states / 25))
    for (const line of run.err) expect(line).toMatch(PROGRESS)
    expect(run.err[0]).toMatch(/^check: 25 states, /)
  })

  it('refuses bad values with a usage error (exit 2)', () => {
    for (const args of [
      ['--max-states', '0'],
      ['--max-states', 'many'],
      ['--progress', '0'],
      ['--progress', '-5'],
      ['--progress', '10', '--pct', '5'],
    ]) {
      const run = sd('check', 'mutex-ricart-agrawala', ...args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.err.join('\n')).toMatch(/--max-states|--progress/)
    }
  })
})
