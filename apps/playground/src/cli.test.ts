import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import type { Scenario } from './scenario.js'
import { scenarios } from './scenarios/index.js'
import { displayWidth } from './width.js'

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
        'expectedViolations',
        'faults',
        'liveness',
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
      expect(summary.liveness, s.name).toMatchObject({ held: true })
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
    expect(out).toMatch(/rows folded/)
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
    [['run', 'flood', '--crash', '1,1']],
    [['run', 'flood', '--crash', '1,']],
    [['run', 'flood', '--seed', '9007199254740993']],
    [['run', 'flood', '--width', '5']],
    [['run', 'flood', '--rows', '-1']],
    [['run', 'flood', '--trace', '-', '--json']],
    [['run', 'make', '--crash', '1']],
    [['tour', 'extra']],
    [['--version', 'extra']],
    [['list', 'more']],
  ])('exits 2 with a usage message on bad arguments: %j', (argv) => {
    const { code, err, out } = sd(...argv)
    expect(code).toBe(2)
    expect(err).toMatch(/^sd: .+\nsee sd .*--help.* for the usage$/)
    expect(out).toBe('')
  })
})

describe('sd arguments', () => {
  it('refuses what it cannot honour, saying why', () => {
    expect(sd('run', 'flood', '--crash', '1,1').err).toMatch(/^sd: --crash lists node 1 twice/)
    // The election examples number their processes from 0, as the texts do.
    expect(sd('run', 'election-bully', '--crash', '8').err).toMatch(
      /^sd: --crash: node 8 is not in 0\.\.7/,
    )
    expect(sd('run', 'election-bully', '--crash', '0', '--json').code).toBe(0)
    expect(sd('run', 'flood', '--crash', '0').err).toMatch(/^sd: --crash: node 0 is not in 1\.\.5/)
    expect(sd('run', 'flood', '--seed', '9007199254740993').err).toMatch(
      /^sd: --seed 9007199254740993 is not a safe integer.*rounded to 9007199254740992/,
    )
    expect(sd('run', 'make', '--crash', '2').err).toMatch(/^sd: make does not take --crash/)
  })

  it('takes negative seeds, written --seed -5 or --seed=-5, and the largest safe ones', () => {
    const spaced = sd('run', 'flood', '--json', '--seed', '-5')
    const joined = sd('run', 'flood', '--json', '--seed=-5')
    expect(spaced.code).toBe(0)
    expect(JSON.parse(spaced.out).seed).toBe(-5)
    expect(joined.out).toBe(spaced.out)
    expect(sd('run', 'flood', '--json', '--seed', '5').out).not.toBe(spaced.out)
    const max = sd('run', 'flood', '--json', '--seed', String(Number.MAX_SAFE_INTEGER))
    expect(JSON.parse(max.out).seed).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('run <scenario> --help describes the scenario, its --n range and when --crash applies', () => {
    for (const s of scenarios) {
      const { code, out } = sd('run', s.name, '--help')
      expect(code).toBe(0)
      expect(out).toContain(`sd run ${s.name}: ${s.title}`)
      expect(out).toContain(s.description.slice(0, 40))
      expect(out).toMatch(
        s.minN === s.maxN ? `--n: ${s.minN} nodes only` : `--n: ${s.minN}..${s.maxN}`,
      )
      expect(out).toMatch(/^--crash: /m)
      expect(out).toContain('usage:')
    }
    expect(sd('run', '--help').out).toMatch(/^usage:/)
  })

  it('--version prints the playground package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(sd('--version')).toEqual({ code: 0, out: `sd ${pkg.version}`, err: '' })
  })

  it('--legend explains every symbol; each diagram ends with a hint to it', () => {
    const legend = sd('--legend')
    expect(legend.code).toBe(0)
    for (const symbol of [
      '→',
      '←',
      '✕',
      '⧉',
      '⏰',
      '★',
      '▶',
      '💥',
      '↻',
      '│',
      '┊',
      'partition',
      'heal',
    ])
      expect(legend.out).toContain(symbol)
    expect(sd('run', 'flood', '--rows', '3').out).toMatch(/\n.*sd --legend.*\n/)
    // Wide enough for the legend's longest line: at the terminal's width it is wrapped.
    expect(sd('run', 'flood', '--rows', '3', '--legend', '--width', '200').out).toContain(
      legend.out,
    )
  })
})

describe('sd crashes', () => {
  it('every scenario accepts every node crashed, or refuses --crash with a usage error', () => {
    for (const s of scenarios) {
      for (const n of new Set([s.minN, s.defaultN, s.maxN])) {
        const first = s.firstId ?? 1
        const all = Array.from({ length: n }, (_, i) => first + i).join(',')
        const { code, out, err } = sd('run', s.name, '--n', String(n), '--crash', all, '--json')
        if (s.crashes === undefined) {
          expect(code, s.name).toBe(2)
          expect(err).toMatch(/does not take --crash/)
          continue
        }
        expect({ name: s.name, n, code, err }).toEqual({ name: s.name, n, code: 0, err: '' })
        const crashed = JSON.parse(out).faults.filter((f: { type: string }) => f.type === 'crash')
        expect(crashed.map((f: { node: number }) => f.node)).toEqual(all.split(',').map(Number))
      }
    }
  })

  it('says when a crash takes effect, and draws partitions, heals and crashes', () => {
    const { code, out } = sd('run', 'flood', '--n', '4', '--crash', '2', '--width', '100')
    expect(code).toBe(0)
    expect(out).toMatch(/^crash of 2 at t=0 ms$/m)
    expect(out).toMatch(/^partition \{1,2\} \| \{3,4\} at t=40 ms$/m)
    expect(out).toMatch(/^ +40\.000 {2}── partition \{1,2\} \| \{3,4\} ─+$/m)
    expect(out).toMatch(/^ +90\.000 {2}── heal ─+$/m)
    expect(out).toMatch(/^ +0\.000 {2}│ +💥 crash +│ +│$/m)
  })
})

describe('sd output streams and width', () => {
  it('--trace - writes only the trace to stdout; the diagram goes to stderr', () => {
    const { code, out, err } = sd('run', 'flood', '--trace', '-', '--seed', '4')
    expect(code).toBe(0)
    const doc = JSON.parse(out)
    expect(doc.format).toBe('sd-trace')
    expect(doc.seed).toBe(4)
    expect(err).toMatch(/node 1 +node 2/)
    expect(err).toMatch(/invariants: all held/)
  })

  it('fits the diagram in --width, compact when the full view does not fit', () => {
    const diagramLines = (text: string) => {
      const lines = text.split('\n')
      const start = lines.findIndex((l) => l.includes('t (ms)'))
      const end = lines.findIndex((l) => l.includes('sd --legend'))
      return lines.slice(start, end).filter((l) => !l.startsWith('compact view'))
    }
    for (const s of scenarios) {
      const { out } = sd('run', s.name, '--width', '80')
      for (const line of diagramLines(out)) expect(displayWidth(line), line).toBeLessThanOrEqual(80)
    }
    const compact = sd('run', 'flood', '--n', '12', '--width', '100').out
    expect(compact).toMatch(/compact view/)
    for (const line of diagramLines(compact)) expect(displayWidth(line)).toBeLessThanOrEqual(100)
    expect(sd('run', 'flood', '--n', '12', '--width', '300').out).not.toMatch(/compact view/)
  })

  it('takes the terminal width when there is one, else 100', () => {
    const run = (columns?: number) => {
      const out: string[] = []
      main(['run', 'flood', '--n', '8'], { out: (t) => out.push(t), err: () => {}, columns })
      return out.join('\n')
    }
    expect(run(200)).not.toMatch(/compact view/)
    expect(run(undefined)).toMatch(/compact view/)
    expect(run(undefined)).toBe(run(100))
  })
})

describe('sd exit codes', () => {
  const broken: Scenario = {
    name: 'broken',
    title: 'a scenario whose invariant always fails (test only)',
    description: 'Two nodes, nothing happens, and a violation is reported.',
    defaultN: 2,
    minN: 2,
    maxN: 2,
    run: ({ seed }) => {
      const net = new SimNetwork({ seed })
      net.launch([1, 2], () => ({ onMessage() {} }))
      net.run()
      return { net, result: {}, violations: ['the invariant does not hold'] }
    },
  }
  const withBroken = <T>(body: () => T): T => {
    scenarios.push(broken)
    try {
      return body()
    } finally {
      scenarios.splice(scenarios.indexOf(broken), 1)
    }
  }

  it('exits 1 when an invariant is violated: run, run --json and tour', () => {
    withBroken(() => {
      const run = sd('run', 'broken')
      expect(run.code).toBe(1)
      expect(run.out).toMatch(/VIOLATIONS:\n {2}- the invariant does not hold/)
      const json = sd('run', 'broken', '--json')
      expect(json.code).toBe(1)
      expect(JSON.parse(json.out).violations).toEqual(['the invariant does not hold'])
      const tour = sd('tour', '--all')
      expect(tour.code).toBe(1)
      expect(tour.out).toMatch(/tour: violations in broken$/)
    })
  })

  it('the tour (pnpm demo) shows one main scenario per package, then the visualizer and the cluster', () => {
    const { code, out } = sd('tour')
    expect(code).toBe(0)
    const shown = [...out.matchAll(/^=== (\S+) === (@sd\/[a-z]+):/gm)].map((m) => [m[1], m[2]])
    expect(shown.map(([, pkg]) => pkg)).toEqual([
      '@sd/transport',
      '@sd/clocks',
      '@sd/mutex',
      '@sd/election',
      '@sd/timesync',
      '@sd/deadlock',
    ])
    for (const [name] of shown) expect(scenarios.map((s) => s.name)).toContain(name)
    expect(out).not.toContain('VIOLATIONS')
    expect(out).toMatch(/tour: 6 scenarios, every invariant and liveness check held/)
    expect(out).toMatch(/pnpm visualize/)
    expect(out).toMatch(/pnpm cluster/)
  })

  it('tour --all runs every scenario with its defaults', () => {
    const { code, out } = sd('tour', '--all')
    expect(code).toBe(0)
    for (const s of scenarios) expect(out).toContain(`=== ${s.name} ===`)
    expect(out).not.toContain('VIOLATIONS')
    expect(out).toMatch(/every invariant and liveness check held \(mutex-quorum: [^)]*\)$/)
  })
})
