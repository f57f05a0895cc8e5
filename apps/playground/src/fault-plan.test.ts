import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { faultsEnd, parseClockSteps, parsePauses } from './fault-plan.js'
import { faultLines } from './faults.js'
import { scenarios } from './scenarios/index.js'
import { UsageError } from './usage.js'

function sd(...argv: string[]) {
  let out = ''
  let err = ''
  const code = main(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) })
  return { code, out, err }
}

const ONE_TO_FIVE = { first: 1, n: 5 }

describe('parsing --pause and --clock-step', () => {
  it('reads ID@T+D and ID@T:DELTA, several comma separated, decimals and signs', () => {
    expect(parsePauses('2@50+100, 3@10.5+20', ONE_TO_FIVE)).toEqual([
      { type: 'pause', node: 2, at: 50, forMs: 100 },
      { type: 'pause', node: 3, at: 10.5, forMs: 20 },
    ])
    expect(parseClockSteps('1@40:-500,5@0:+250.5', ONE_TO_FIVE)).toEqual([
      { type: 'clock-step', node: 1, at: 40, deltaMs: -500 },
      { type: 'clock-step', node: 5, at: 0, deltaMs: 250.5 },
    ])
    expect(parsePauses('2@50+100,2@200+1', ONE_TO_FIVE)).toHaveLength(2)
    expect(faultsEnd(parsePauses('2@50+100,3@10+20', ONE_TO_FIVE))).toBe(150)
    // Ids drawn from the seed are checked at the run, not against 1..n.
    expect(parsePauses('47@1+1', undefined)).toEqual([{ type: 'pause', node: 47, at: 1, forMs: 1 }])
  })

  it.each([
    ['2@50', /--pause takes ID@T\+D/],
    ['x@50+10', /the node id must be an integer/],
    ['9@50+10', /node 9 is not in 1\.\.5/],
    ['0@50+10', /node 0 is not in 1\.\.5/],
    ['2@-5+10', /t=-5 ms is in the past: the run starts at t=0/],
    ['2@soon+10', /the time T must be a number of ms/],
    ['2@5+-10', /the duration must be positive, got -10 ms/],
    ['2@5+0', /the duration must be positive, got 0 ms/],
    ['2@5+ten', /the duration D must be a number of ms/],
    ['2@9000+2000', /the pause must end by t=10000 ms/],
    ['2@10+50,2@30+5', /node 2 would be paused twice at once/],
    ['2@10+20,2@30+5', /node 2 would be paused twice at once/],
    ['2@10+20,', /has an empty entry/],
  ])('refuses --pause %s', (text, message) => {
    expect(() => parsePauses(text, ONE_TO_FIVE)).toThrow(UsageError)
    expect(() => parsePauses(text, ONE_TO_FIVE)).toThrow(message)
  })

  it.each([
    ['1@40', /--clock-step takes ID@T:DELTA/],
    ['6@40:5', /node 6 is not in 1\.\.5/],
    ['1@-1:5', /is in the past/],
    ['1@40:0', /a step of 0 ms changes nothing/],
    ['1@40:soon', /DELTA must be a number of ms/],
    ['1@20000:5', /the step must come by t=10000 ms/],
  ])('refuses --clock-step %s', (text, message) => {
    expect(() => parseClockSteps(text, ONE_TO_FIVE)).toThrow(message)
  })
})

describe('sd run with --pause and --clock-step', () => {
  it('usage errors exit 2 with the reason, for bad values and for scenarios that refuse the fault', () => {
    const cases: Array<[string[], RegExp]> = [
      [['flood', '--pause', '7@5+10'], /^sd: --pause 7@5\+10: node 7 is not in 1\.\.5/],
      [['flood', '--pause', '2@5+-3'], /the duration must be positive/],
      [['flood', '--clock-step', '1@5:100'], /^sd: flood does not take --clock-step: no protocol/],
      [['mutex-quorum', '--pause', '6@5+10'], /^sd: mutex-quorum does not take --pause: /],
      [['election-bully', '--pause', '8@5+10'], /node 8 is not in 0\.\.7/],
      [['election-yoyo', '--pause', '2@5+10'], /node 2 is not in this run; its nodes are 1, 23/],
    ]
    for (const [args, message] of cases) {
      const { code, err, out } = sd('run', ...args)
      expect(code, args.join(' ')).toBe(2)
      expect(err, args.join(' ')).toMatch(message)
      expect(out).toBe('')
    }
  })

  it('--help says, per scenario, what each fault does there or why it is refused', () => {
    for (const s of scenarios) {
      const { out } = sd('run', s.name, '--help')
      expect(out, s.name).toMatch(/^--pause: /m)
      expect(out, s.name).toMatch(/^--clock-step: /m)
    }
    expect(sd('run', 'mutex-centralized', '--help').out).toMatch(
      /^--clock-step: leases run on the monotonic clock/m,
    )
    expect(sd('run', 'flood', '--help').out).toMatch(/^--clock-step: not accepted: /m)
    expect(sd('help').out).toMatch(/--pause ID@T\+D/)
    expect(sd('help').out).toMatch(/--clock-step ID@T:DELTA/)
  })

  it('a pause is in the trace, in --json faults, in the fault lines and in the diagram as a band', () => {
    const args = ['run', 'mutex-ricart-agrawala', '--pause', '3@0+20', '--width', '100']
    const { code, out } = sd(...args)
    expect(code).toBe(0)
    expect(out).toMatch(/^pause of 3 at t=0 ms$/m)
    expect(out).toMatch(/^resume of 3 at t=20 ms \(\d+ held events? handled now\)$/m)
    const rows = out.split('\n')
    const pauseRow = rows.findIndex((l) => /‖ pause/.test(l))
    const resumeRow = rows.findIndex((l) => /‖▸ resume/.test(l))
    expect(pauseRow).toBeGreaterThan(0)
    expect(resumeRow).toBeGreaterThan(pauseRow)
    // Between the two, node 3's column is drawn ┃ (paused), never │.
    const between = rows.slice(pauseRow + 1, resumeRow).filter((l) => /^ *\d+\.\d{3} /.test(l))
    expect(between.length).toBeGreaterThan(0)
    for (const line of between) expect(line.trimEnd()).toMatch(/┃$/)
    const json = sd('run', 'mutex-ricart-agrawala', '--pause', '3@0+20', '--json')
    const summary = JSON.parse(json.out)
    expect(summary.faults).toEqual([
      { t: 0, type: 'pause', node: 3 },
      { t: 20, type: 'resume', node: 3, backlog: expect.any(Number) },
    ])
    expect(summary.liveness.held).toBe(true)
    // The same flags replay the same run.
    expect(sd('run', 'mutex-ricart-agrawala', '--pause', '3@0+20', '--json').out).toBe(json.out)
  })

  it('a clock step is in the trace, the faults and the diagram as a mark on its node', () => {
    const { code, out } = sd(
      'run',
      'mutex-centralized',
      '--clock-step',
      '1@15:-500',
      '--width',
      '140',
    )
    expect(code).toBe(0)
    expect(out).toMatch(/^clock step of 1 by -500 ms at t=15 ms \(wall clock only\)$/m)
    expect(out).toMatch(/^ *15\.000 {2}⇅ -500 ms/m)
    const summary = JSON.parse(
      sd('run', 'mutex-centralized', '--clock-step', '1@15:-500', '--json').out,
    )
    expect(summary.faults).toContainEqual({ t: 15, type: 'clock-step', node: 1, deltaMs: -500 })
  })

  it('every scenario that takes --pause plans it on its network', () => {
    for (const s of scenarios) {
      if (!s.pause || 'refuses' in s.pause) continue
      const id = s.randomIds
        ? JSON.parse(sd('run', s.name, '--json').out).nodes[1]
        : (s.firstId ?? 1) + 1
      const { code, out, err } = sd('run', s.name, '--pause', `${id}@5+10`, '--json')
      expect(code, `${s.name}: ${err}`).not.toBe(2)
      const faults = JSON.parse(out).faults.map((f: { type: string }) => f.type)
      expect(faults, s.name).toEqual(expect.arrayContaining(['pause', 'resume']))
    }
  })

  it('says when a planned pause never took effect: its node was down', () => {
    const { out } = sd('run', 'mutex-ricart-agrawala', '--crash', '2', '--pause', '2@5+10')
    expect(out).toMatch(
      /^--pause 2@5\+10 never took effect: node 2 was down \(crashed\) at t=5 ms$/m,
    )
    expect(faultLines([], [], [{ type: 'clock-step', node: 1, at: 50, deltaMs: 3 }])).toEqual([
      '--clock-step 1@50:+3 never took effect: the run ended first',
    ])
  })
})

describe('paused runs (property, bounded by count)', () => {
  it('a node paused 100 ms, leader, holder or member, keeps every invariant and every liveness promise', () => {
    const plans: Array<[string, number[]]> = [
      ['mutex-centralized', [1, 2, 3, 4, 5]],
      ['mutex-token-ring', [1, 2, 3, 4, 5, 6]],
      ['mutex-ricart-agrawala', [1, 2, 3]],
      ['election-bully', [0, 4, 7]],
    ]
    for (const [name, ids] of plans)
      for (let seed = 1; seed <= 4; seed++)
        for (const id of ids)
          for (const at of [5, 25]) {
            const args = ['run', name, '--seed', String(seed), '--pause', `${id}@${at}+100`]
            const { code, out } = sd(...args, '--json')
            const summary = JSON.parse(out)
            const where = `sd ${args.join(' ')}`
            expect(summary.violations, where).toEqual([])
            expect(summary.liveness.unfinished, where).toEqual([])
            expect(code, where).toBe(0)
          }
  })
})
