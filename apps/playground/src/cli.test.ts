import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { scenarios } from './scenarios/index.js'

function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('sd', () => {
  it('lists every registered scenario', () => {
    const { code, out } = sd('list')
    expect(code).toBe(0)
    for (const s of scenarios) expect(out).toContain(s.name)
  })

  it('run --json prints exactly one JSON object with the shared contract', () => {
    for (const s of scenarios) {
      const { code, out } = sd('run', s.name, '--json', '--seed', '3')
      expect(code, s.name).toBe(0)
      const summary = JSON.parse(out)
      expect(Object.keys(summary).sort()).toEqual([
        'messages',
        'nodes',
        'result',
        'scenario',
        'seed',
        'violations',
        'virtualTimeMs',
      ])
      expect(summary.scenario).toBe(s.name)
      expect(summary.seed).toBe(3)
      expect(summary.nodes).toHaveLength(s.defaultN)
      expect(summary.messages.total).toBe(
        Object.values(summary.messages.byType as Record<string, number>).reduce((a, b) => a + b, 0),
      )
      expect(summary.violations).toEqual([])
    }
  })

  it('the same seed replays the same run; --trace writes the whole trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-'))
    const a = sd('run', 'flood', '--json', '--seed', '9', '--trace', join(dir, 'a.json'))
    const b = sd('run', 'flood', '--json', '--seed', '9', '--trace', join(dir, 'b.json'))
    expect(a.out).toBe(b.out)
    const trace = readFileSync(join(dir, 'a.json'), 'utf8')
    expect(trace).toBe(readFileSync(join(dir, 'b.json'), 'utf8'))
    const doc = JSON.parse(trace)
    expect(doc.format).toBe('sd-trace')
    const sends = doc.events.filter((e: { type: string }) => e.type === 'send').length
    expect(sends).toBe(JSON.parse(a.out).messages.total)
    expect(sd('run', 'flood', '--json', '--seed', '10').out).not.toBe(a.out)
  })

  it('draws a diagram with counts when not asked for JSON', () => {
    const { code, out } = sd('run', 'flood', '--n', '3', '--rows', '5')
    expect(code).toBe(0)
    expect(out).toMatch(/node 1 +node 2 +node 3/)
    expect(out).toMatch(/more events/)
    expect(out).toMatch(/messages sent: \d+/)
    expect(out).toMatch(/invariants: all held/)
  })

  it.each([
    [[]],
    [['fly']],
    [['run']],
    [['run', 'nope']],
    [['run', 'flood', 'extra']],
    [['run', 'flood', '--n', 'three']],
    [['run', 'flood', '--n', '1']],
    [['run', 'flood', '--seed', '1.5']],
    [['run', 'flood', '--crash', '9']],
    [['run', 'flood', '--bogus']],
    [['list', 'more']],
  ])('exits 2 with a usage message on bad arguments: %j', (argv) => {
    const { code, err, out } = sd(...argv)
    expect(code).toBe(2)
    expect(err).toMatch(/^sd: .+\nusage:/)
    expect(out).toBe('')
  })
})
