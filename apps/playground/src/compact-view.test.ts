import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { displayWidth } from './width.js'

/** The lines of `sd run ...` (stdout and stderr). */
function run(args: string[]): string[] {
  const lines: string[] = []
  const put = (t: string) => lines.push(...t.split('\n'))
  main(['run', ...args], { out: put, err: put })
  return lines
}

/** The diagram's rows: from the header's rule to the notes under it. */
function diagramRows(lines: readonly string[]): string[] {
  const start = lines.findIndex((l) => /^-+$/.test(l))
  const end = lines.findIndex((l) => /^(symbols:|compact view:|… )/.test(l))
  return lines.slice(start + 1, end)
}

describe('the compact view keeps the story readable', () => {
  it('flood at 5 nodes and 80 columns: message types and drop reasons in words, no bare ids', () => {
    const lines = run(['flood', '--n', '5', '--width', '80'])
    expect(lines.join('\n')).toContain('compact view')
    const rows = diagramRows(lines).join('\n')
    expect(rows).toMatch(/→\d+ rumour/)
    expect(rows).toMatch(/←\d+ rumour/)
    expect(rows).toMatch(/✕ (loss|partition)/)
    expect(rows).toMatch(/★ delivered=\d+/) // an event without a note: its fields, not its JSON
    expect(rows).not.toMatch(/#\d/)
    expect(rows).not.toContain('{"')
    for (const line of diagramRows(lines)) expect(displayWidth(line), line).toBeLessThanOrEqual(80)
  })

  it('mutex-centralized at 5 nodes and 80 columns: notes on up to three lines, not cut to nothing', () => {
    const rows = diagramRows(run(['mutex-centralized', '--n', '5', '--width', '80'])).join('\n')
    expect(rows).toMatch(/→\d+ grant/)
    expect(rows).toMatch(/★ grants to/)
    expect(rows).toMatch(/^ +\(token 1\) /m) // the second line of `★ grants to 5 (token 1)`
    expect(rows).toMatch(/▶ acquire/)
    expect(rows).not.toMatch(/#\d/)
  })

  it('a drop to a crashed node says so in words, on two lines where the column is narrow', () => {
    const lines = diagramRows(run(['mutex-centralized', '--n', '5', '--width', '80']))
    const at = lines.findIndex((l) => l.includes('✕ receiver'))
    expect(at, 'no drop to a crashed receiver drawn').toBeGreaterThan(-1)
    expect(lines[at + 1]).toMatch(/^ +[┊│ ].* crashed /)
  })

  it('election-bully at 8 nodes and 100 columns: who follows whom, in which term', () => {
    const lines = run(['election-bully', '--width', '100'])
    expect(lines.join('\n')).toContain('compact view')
    const rows = diagramRows(lines).join('\n')
    // `★ follows 7 (term 16)` in a column of 10: on three lines, the term kept.
    expect(rows).toMatch(/★ follows/)
    expect(rows).toMatch(/ 7 \(term/)
    expect(rows).toMatch(/ 16\)/)
    expect(rows).not.toMatch(/#\d/)
    expect(rows).not.toContain('★{')
  })
})

describe('the compact view at 8 nodes and 80 columns', () => {
  it('election-bully: a message type too long for its column goes on under its row, whole', () => {
    const lines = run(['election-bully', '--width', '80'])
    expect(lines.join('\n')).toContain('compact view')
    const rows = diagramRows(lines)
    for (const line of rows) expect(displayWidth(line), line).toBeLessThanOrEqual(80)
    const send = rows.findIndex((l) => /^ +0\.0 +→1 +│/.test(l))
    expect(send, 'the first election message').toBeGreaterThan(-1)
    expect(rows[send + 1]).toMatch(/^ +election +│/)
    expect(rows.join('\n')).not.toMatch(/elec…|→\d+ elec…/)
    expect(rows.join('\n')).toMatch(/coord\s*│[\s\S]*inator/)
  })
})
