import { replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { main } from '../cli.js'
import { checks } from './index.js'
import { labLink } from './lab-link.js'

function sd(...argv: string[]) {
  const out: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: () => {} })
  return { code, out: out.join('\n') }
}

/**
 * The lab's address of a counterexample, as `sd check` prints it. The lab (which depends on the
 * playground, so the playground cannot import it) decodes the same format in its own tests.
 */
describe('sd check prints the lab link of its counterexample', () => {
  it('the link holds the scenario, n and the shrunk schedule, escaped', () => {
    expect(labLink('flood', 3, 't:1#1 m:1>2#1 drop:m:1>3#1')).toBe(
      '?scenario=flood&n=3&schedule=t%3A1%231+m%3A1%3E2%231+drop%3Am%3A1%3E3%231',
    )
    expect(labLink('flood', 2, '')).toBe('?scenario=flood&n=2&schedule=')
  })

  it('printed after the replay line; read back, it is the shrunk schedule, which breaks it again', () => {
    const { code, out } = sd('check', 'flood', '--n', '3', '--faults', '2')
    expect(code).toBe(1)
    const shrunk = /^shrunk: {3}(.*)$/m.exec(out)![1]!
    const link = /^lab: {6}(\?\S+) \(after the lab's address: pnpm lab\)$/m.exec(out)![1]!
    const p = new URLSearchParams(link.slice(1))
    expect([...p.keys()]).toEqual(['scenario', 'n', 'schedule'])
    expect(p.get('scenario')).toBe('flood')
    expect(p.get('n')).toBe('3')
    expect(p.get('schedule')).toBe(shrunk)
    const spec = checks.find((c) => c.scenario === 'flood')!
    expect(replay(spec.build(3), p.get('schedule')!).violation).toMatch(/never got the rumour/)
    // --json carries it too.
    const json = JSON.parse(sd('check', 'flood', '--n', '3', '--faults', '2', '--json').out)
    expect(json.lab).toBe(link)
  })
})
