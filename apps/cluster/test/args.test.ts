import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CHAOS_KINDS, DEFAULTS, parseArgs, parseChaos, USAGE, UsageError } from '../src/args.js'

const fixed = () => 0.5

describe('parseArgs', () => {
  it('has small defaults and every fault', () => {
    const o = parseArgs([], fixed)
    expect(o).toEqual({ ...DEFAULTS, seed: 2 ** 30 })
    expect(o.n).toBe(3)
    expect(o.seconds).toBe(20)
    expect(o.chaos).toEqual([...CHAOS_KINDS])
  })

  it('reads the documented options, with a space or =, after a `--` that pnpm passes on', () => {
    const o = parseArgs(
      [
        '--',
        '--n',
        '5',
        '--seconds=30',
        '--chaos',
        'kill-leader,partition',
        '--loss',
        '20',
        '--fault-ms',
        '1500',
        '--rounds',
        '2',
        '--json',
        '--trace',
        't.json',
        '--seed',
        '7',
        '--loopback',
        '--keep',
        '--plain',
      ],
      fixed,
    )
    expect(o).toMatchObject({
      n: 5,
      seconds: 30,
      chaos: ['kill-leader', 'partition'],
      lossPercent: 20,
      faultMs: 1500,
      rounds: 2,
      json: true,
      trace: 't.json',
      seed: 7,
      mode: 'loopback',
      keep: true,
      plain: true,
    })
    expect(parseArgs(['--netns'], fixed).mode).toBe('netns')
    expect(parseArgs(['--help'], fixed).help).toBe(true)
  })

  it('keeps the order of the faults; none and all', () => {
    expect(parseChaos('loss,kill-holder')).toEqual(['loss', 'kill-holder'])
    expect(parseChaos('none')).toEqual([])
    expect(parseChaos('all')).toEqual([...CHAOS_KINDS])
  })

  it.each([
    [['--n', '2'], '--n must be in 3..9, got 2'],
    [['--n', '10'], '--n must be in 3..9'],
    [['--n', 'three'], '--n needs a whole number'],
    [['--n'], '--n needs a value'],
    [['--seconds', '--json'], '--seconds needs a value'],
    [['--seconds', '4'], '--seconds must be in 5..600'],
    [['--loss', '0'], '--loss must be in 1..50'],
    [['--fault-ms', '100'], '--fault-ms must be in 500..6000'],
    [['--rounds', '0'], '--rounds must be in 1..100'],
    [['--chaos', 'kill-leader,meteor'], 'unknown fault "meteor"'],
    [['--json=yes'], '--json takes no value'],
    [['--nodes', '3'], 'unknown option "--nodes"'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv, fixed)).toThrow(UsageError)
    expect(() => parseArgs(argv, fixed)).toThrow(message)
  })
})

describe('the README', () => {
  it('shows the usage text as --help prints it', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).toContain(USAGE)
  })
})
