/**
 * What a person running the demo sees: words for every event, honest seeds, explicit intended
 * findings, short usage errors, and `sd check` as helpful as `sd run` (issue 22, defects).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeId, ProtocolFactory } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type CheckSpec, checks } from './check/index.js'
import { main } from './cli.js'
import { scenarios } from './scenarios/index.js'

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

describe('usage errors: one line of reason and a hint, exit 2', () => {
  const missing = join(tmpdir(), `sd-no-such-folder-${process.pid}`, 'x.json')

  it('--trace into a folder that does not exist is refused before the run (run and check)', () => {
    for (const argv of [
      ['run', 'flood', '--trace', missing],
      ['check', 'flood', '--trace', missing],
    ]) {
      const { code, out, err } = sd(...argv)
      expect(code, argv.join(' ')).toBe(2)
      expect(out, argv.join(' ')).toBe('')
      const lines = err.split('\n')
      expect(lines, err).toHaveLength(2)
      expect(lines[0]).toMatch(/^sd: --trace .*x\.json: the folder .* does not exist/)
      expect(lines[1]).toMatch(new RegExp(`^see sd ${argv[0]} --help`))
      expect(err).not.toContain('ENOENT')
    }
  })

  it('--trace onto a folder is refused with why, not a raw EISDIR', () => {
    const folder = mkdtempSync(join(tmpdir(), 'sd-trace-'))
    const { code, err } = sd('run', 'flood', '--trace', folder)
    expect(code).toBe(2)
    expect(err).toMatch(/cannot write it \(a folder of that name exists\)/)
  })

  it('an unknown option: the first sentence of the parser, not the whole usage', () => {
    const { code, err } = sd('run', 'flood', '--bogus')
    expect(code).toBe(2)
    expect(err).toBe(
      "sd: Unknown option '--bogus'\nsee sd run --help (or sd run <scenario> --help) for the usage",
    )
  })
})

describe('sd check is as helpful as sd run', () => {
  it('sd check --help prints the options and exit codes of check, exit 0', () => {
    for (const flag of ['--help', '-h']) {
      const { code, out, err } = sd('check', flag)
      expect(code, err).toBe(0)
      expect(out).toMatch(/^usage: sd check <scenario> \[options\]/)
      for (const option of ['--n', '--depth', '--faults', '--max-schedules', '--pct', '--trace'])
        expect(out).toContain(option)
      expect(out).toMatch(/exit codes: 0 .*\n?.*1 a counterexample/)
      for (const spec of checks) expect(out).toContain(spec.scenario)
    }
  })

  it('sd check <scenario> --help adds what that check explores and its --n range, exit 0', () => {
    for (const spec of checks) {
      const { code, out, err } = sd('check', spec.scenario, '--help')
      expect(code, `${spec.scenario}: ${err}`).toBe(0)
      expect(out).toMatch(new RegExp(`^sd check ${spec.scenario} \\(n=${spec.defaultN}\\):`))
      expect(out).toMatch(/\n--n: \d/)
      expect(out).toContain('usage: sd check <scenario>')
    }
  })

  it('cristian at n = 2 describes only the nodes it runs (no node 3)', () => {
    const two = sd('check', 'cristian', '--n', '2')
    expect(two.code).toBe(0)
    const header = two.out.split('\n')[0]!
    expect(header).toMatch(/^check cristian \(n=2\)/)
    expect(header).not.toMatch(/node 3/)
    expect(sd('check', 'cristian').out.split('\n')[0]).toMatch(/node 3's 52 ms ahead/)
  })

  it('--trace says what it wrote, or that a clean check has nothing to write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-check-trace-'))
    const file = join(dir, 'clean.json')
    const clean = sd('check', 'election-chang-roberts', '--trace', file)
    expect(clean.code).toBe(0)
    expect(clean.out).toContain(
      `trace: nothing written to ${file} (no counterexample or lasso to replay)`,
    )
    expect(existsSync(file)).toBe(false)
  })
})

describe('sd check --trace with a counterexample', () => {
  const broken: CheckSpec = {
    scenario: 'broken-check',
    what: 'two nodes exchange one message; the invariant fails once it is delivered (test only)',
    defaultN: 2,
    minN: 2,
    maxN: 2,
    defaults: { depth: 10 },
    build: () => ({
      setup(net) {
        const pinger: ProtocolFactory<string, never, { type: string }> = (self: NodeId) => ({
          start(ctx) {
            if (self === 1) ctx.send(2, 'ping')
          },
          onMessage(_from, _msg, ctx) {
            ctx.emit({ type: 'got' })
          },
        })
        net.launch([1, 2], pinger)
      },
      invariant: ({ events }) => (events.length > 0 ? 'node 2 got the message' : undefined),
    }),
  }

  it('writes the replayed counterexample and says so', () => {
    const registry = checks as CheckSpec[]
    registry.push(broken)
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'sd-check-trace-')), 'broken.json')
      const { code, out } = sd('check', 'broken-check', '--trace', file)
      expect(code, out).toBe(1)
      expect(out).toContain(`trace of the replayed counterexample written to ${file}`)
      expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('sd-trace')
    } finally {
      registry.splice(registry.indexOf(broken), 1)
    }
  })
})

describe('mutex-quorum: its intended violation is named as such, in the output and the exit rules', () => {
  it('prints EXPECTED VIOLATION with the overlap, never "invariants: all held", exit 0', () => {
    const { code, out } = sd('run', 'mutex-quorum')
    expect(code).toBe(0)
    expect(out).toMatch(
      /EXPECTED VIOLATION \(what this scenario is built to show; it does not fail the run\):\n {2}- t=22: 7 acquired default \(token \d+\) while 6 held it/,
    )
    expect(out).toContain('invariants: no violation besides the expected one')
    expect(out).not.toContain('invariants: all held')
    expect(out).not.toMatch(/^VIOLATIONS:/m)
  })

  it('--json lists it under expectedViolations, with violations empty', () => {
    const summary = JSON.parse(sd('run', 'mutex-quorum', '--json').out)
    expect(summary.violations).toEqual([])
    expect(summary.expectedViolations).toHaveLength(1)
    expect(summary.expectedViolations[0]).toMatch(/7 acquired default .* while 6 held it/)
    expect(JSON.parse(sd('run', 'flood', '--json').out).expectedViolations).toEqual([])
  })

  it('the exit-code rules of --help say that an expected violation exits 0 and its absence 1', () => {
    const { out } = sd('--help')
    const rules = out.slice(out.indexOf('exit codes:'))
    expect(rules).toMatch(/0 +ok; also when a scenario built to show a violation \(mutex-quorum\)/)
    expect(rules).toMatch(/for mutex-quorum: its intended violation did not\s+happen/)
    expect(sd('run', 'mutex-quorum', '--help').out).toContain('EXPECTED VIOLATION')
  })

  it('tour --all names the scenario that showed its expected violation', () => {
    const { code, out } = sd('tour', '--all')
    expect(code).toBe(0)
    expect(out).toMatch(
      /every invariant and liveness check held \(mutex-quorum: the expected violation/,
    )
  })
})

describe('--seed: it drives the run, or the scenario says it changes nothing', () => {
  /** The trace's events (the document also records the seed itself). */
  const eventsOf = (name: string, seed: number) =>
    JSON.stringify(
      scenarios
        .find((s) => s.name === name)!
        .run({ n: scenarios.find((s) => s.name === name)!.defaultN, seed, crash: [] })
        .net.traceDocument().events,
    )

  it('a scenario is declared deterministic exactly when seeds 1, 2 and 3 run the same events', () => {
    for (const s of scenarios) {
      const one = eventsOf(s.name, 1)
      const same = [2, 3].every((seed) => eventsOf(s.name, seed) === one)
      expect(s.deterministic !== undefined, `${s.name}: same run for seeds 1..3: ${same}`).toBe(
        same,
      )
    }
  })

  it('election-bully and mutex-token-ring say so under the title and in --help', () => {
    for (const name of ['election-bully', 'mutex-token-ring']) {
      const { code, out } = sd('run', name, '--seed', '5', '--width', '200')
      expect(code, name).toBe(0)
      expect(out.split('\n')[1], name).toMatch(/^seed: changes nothing here, .* every seed$/)
      expect(sd('run', name, '--help').out, name).toMatch(/\n--seed: no effect: /)
    }
    expect(sd('run', 'flood', '--help').out).toMatch(/\n--seed: drives the run/)
    expect(sd('run', 'flood').out).not.toMatch(/^seed: /m)
  })
})
