import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { scenarios } from './scenarios/index.js'
import { nextSteps } from './tour.js'
import { displayWidth, fitToWidth } from './width.js'

/** The lines of `sd ...` (stdout and stderr). */
function sd(args: string[]): string[] {
  const lines: string[] = []
  const put = (t: string) => lines.push(...t.split('\n'))
  main(args, { out: put, err: put })
  return lines
}

/** Words in order, whatever the line breaks: a word split across lines would not be found. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).join(' ')

describe('--width is honoured at any n', () => {
  it.each([
    [24, 100],
    [32, 100],
    [64, 100],
    [24, 80],
    [64, 80],
  ])(
    'flood at n = %i draws every line within %i columns, and says which nodes it left out',
    (n, width) => {
      const lines = sd(['run', 'flood', '--n', String(n), '--width', String(width)])
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width)
      expect(words(lines.join('\n'))).toMatch(
        new RegExp(`\\d+ of ${n} nodes drawn \\(1\\.\\.\\d+\\)`),
      )
      expect(words(lines.join('\n'))).toMatch(/--width \d+ draws them all/)
    },
  )

  it('a node a fault struck is drawn even when higher ids are left out', () => {
    const lines = sd(['run', 'flood', '--n', '64', '--crash', '60', '--width', '100'])
    expect(lines.find((l) => l.startsWith('t (ms)'))).toMatch(/ 22 +60$/)
    expect(words(lines.join('\n'))).toContain('23 of 64 nodes drawn (1..22, 60)')
  })

  it('a run that fits draws every node and says nothing about it', () => {
    const lines = sd(['run', 'flood', '--n', '8', '--width', '100'])
    expect(lines.join('\n')).not.toContain('nodes drawn')
  })
})

describe('every scenario fits the terminal', () => {
  it.each(scenarios.map((s) => s.name))(
    '%s: every line within 80 and within 100 columns',
    (name) => {
      for (const width of [80, 100]) {
        const lines = sd(['run', name, '--width', String(width)])
        for (const line of lines)
          expect(displayWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width)
      }
    },
  )
})

describe('text outside the diagram wraps at the width, between words', () => {
  it.each(['mutex-quorum', 'election-bully', 'mutex-centralized', 'flood'])(
    '%s at 60 columns: title, seed note, summary and verdicts whole, every line within 60',
    (name) => {
      const wide = sd(['run', name, '--width', '1000'])
      const narrow = sd(['run', name, '--width', '60'])
      for (const line of narrow) expect(displayWidth(line), line).toBeLessThanOrEqual(60)
      const told = words(narrow.join('\n'))
      // Every line of prose of the wide run is found whole, word after word, in the narrow one.
      const prose = wide.filter((l) =>
        /^(\S+: |outcome:|finding:|messages sent:|invariants:|liveness:|seed:)/.test(l),
      )
      expect(prose.length).toBeGreaterThan(2)
      for (const line of prose) expect(told, line).toContain(words(line))
    },
  )

  it.each([100, 80, 60, 40])("the tour's next: block at %i columns", (width) => {
    const block = nextSteps(width)
    const lines = block.split('\n')
    expect(lines[0]).toBe('next:')
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width)
    for (const whole of [
      'pnpm sd list',
      'pnpm --silent sd run causal-order --trace /tmp/trace.json && pnpm visualize /tmp/trace.json',
      'the same run as a space-time diagram in your browser',
      'real processes on real sockets: election, lock and clock sync under chaos (kills, partitions, loss)',
    ])
      expect(words(block)).toContain(whole)
  })

  it('the next: block keeps its two columns where they fit', () => {
    const lines = nextSteps(100).split('\n')
    expect(lines[1]).toMatch(/^ {2}pnpm sd list {2,}every scenario/)
    expect(lines[1]!.indexOf('every')).toBe(48)
  })

  it('at 80 columns each description goes under its command, whole', () => {
    const lines = nextSteps(80).split('\n')
    expect(lines[1]).toBe('  pnpm sd list')
    expect(lines[2]).toBe('      every scenario (`pnpm sd tour --all` runs them all)')
  })

  it('fitToWidth keeps lines that fit, and indents what goes on under a list item', () => {
    const row = '  0.0  →1 rumour     │             │'
    expect(fitToWidth(row, 40)).toBe(row)
    expect(
      fitToWidth('  - rumour 2 at node 59: every copy sent to it was cut', 30).split('\n'),
    ).toEqual(['  - rumour 2 at node 59: every', '    copy sent to it was cut'])
    expect(fitToWidth('a title that is long — n=64, seed=1', 20).split('\n')).toEqual([
      'a title that is long',
      '— n=64, seed=1',
    ])
  })

  it('the tour wraps its headers, its verdict and its next: block at --width', () => {
    const lines = sd(['tour', '--width', '60'])
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(60)
    expect(words(lines.join('\n'))).toContain(
      "=== election-bully === @sd/election: the texts' example: 7 fails, 4 notices, 6 wins, 7 returns",
    )
  })
})
