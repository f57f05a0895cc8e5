import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { scenarios } from './scenarios/index.js'

function run(args: string[]): string {
  let out = ''
  main(['run', ...args], { out: (t) => (out += `${t}\n`), err: (t) => (out += `${t}\n`) })
  return out
}

describe('every mutex and election run ends with its outcome in words', () => {
  const mutex = scenarios.filter((s) => s.name.startsWith('mutex-')).map((s) => s.name)
  const election = scenarios.filter((s) => s.name.startsWith('election-')).map((s) => s.name)

  it.each(mutex)('%s names the entries in order, with their tokens', (name) => {
    const line = run([name, '--width', '1000'])
      .split('\n')
      .find((l) => l.startsWith('outcome:'))
    expect(line, `${name} prints no outcome line`).toMatch(
      /^outcome: \d+ entr(y|ies), in order: \S+ \(token \d+\) at t=/,
    )
  })

  it('mutex-centralized: every entry of its run, its fencing tokens rising in order', () => {
    const out = run(['mutex-centralized', '--width', '1000'])
    const line = out.split('\n').find((l) => l.startsWith('outcome:')) ?? ''
    const tokens = [...line.matchAll(/\(token (\d+)\)/g)].map((m) => Number(m[1]))
    const entered = out.split('\n').filter((l) => l.includes('★ enters')).length
    expect(tokens.length).toBeGreaterThan(1)
    expect(tokens.length).toBe(entered)
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b))
  })

  it.each(election)('%s names who leads in which term', (name) => {
    const line = run([name, '--width', '1000'])
      .split('\n')
      .find((l) => l.startsWith('outcome:'))
    expect(line, `${name} prints no outcome line`).toMatch(
      /^outcome: \S+ leads in term \d+, followed by every live node/,
    )
  })

  it('election-bully: 7 leads in term 16 after 6 led term 15', () => {
    expect(run(['election-bully', '--width', '1000'])).toMatch(
      /outcome: 7 leads in term 16, followed by every live node \(0, 1, 2, 3, 4, 5, 6, 7\); before: .*6 \(term 15\)/,
    )
  })
})
