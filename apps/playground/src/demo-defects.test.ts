/**
 * What a person running the demo sees: words for every event, honest seeds, explicit intended
 * findings, short usage errors, and `sd check` as helpful as `sd run` (issue 22, defects).
 */
import { describe, expect, it } from 'vitest'
import { main } from './cli.js'

function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('the diagram describes the events each lock really emits', () => {
  it('mutex-centralized: the coordinator queues, grants and renews in words, never `undefined`', () => {
    for (const seed of ['1', '2', '3']) {
      const { code, out } = sd('run', 'mutex-centralized', '--seed', seed, '--width', '200')
      expect(code, `seed ${seed}`).toBe(0)
      expect(out, `seed ${seed}`).not.toContain('undefined')
      expect(out, `seed ${seed}`).toMatch(/★ queues \d+/)
      expect(out, `seed ${seed}`).toMatch(/★ grants to \d+ \(token \d+\)/)
      expect(out, `seed ${seed}`).toMatch(/★ enters \(token \d+, lease/)
    }
  })

  it('timestamp locks still say when they ask, with their Lamport time', () => {
    const { out } = sd('run', 'mutex-ricart-agrawala', '--width', '200')
    expect(out).toMatch(/★ asks at T=\d+/)
  })
})
