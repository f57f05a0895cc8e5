import { compose, type Protocol, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import type { Scenario } from './scenario.js'
import { scenarios } from './scenarios/index.js'

/** Sends one message of its own type to every peer, and notes what it gets. */
const talker = (type: string): Protocol<{ type: string }, never, string> => ({
  start: (ctx) => ctx.broadcast({ type }),
  onMessage: (_from, msg, ctx) => ctx.emit(`got ${msg.type}`),
})

/** Two composed children, `left` and `right`, and a crash: a test-only scenario. */
const composed: Scenario = {
  name: 'composed-test',
  title: 'two composed protocols (test only)',
  description: 'Each child greets the others with its own message type.',
  defaultN: 2,
  minN: 2,
  maxN: 2,
  run: ({ seed }) => {
    const net = new SimNetwork({ seed, latency: 2 })
    net.launch([1, 2], () => compose({ left: talker('hello-left'), right: talker('hello-right') }))
    net.at(5, () => net.crash(2))
    net.run()
    return { net, result: {}, violations: [] }
  },
}

function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  scenarios.push(composed)
  try {
    const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
    return { code, out: out.join('\n'), err: err.join('\n') }
  } finally {
    scenarios.splice(scenarios.indexOf(composed), 1)
  }
}

describe('sd run --proto', () => {
  it('draws only the entries of one child of a composed protocol, and crashes', () => {
    const all = sd('run', 'composed-test', '--width', '120')
    expect(all.code).toBe(0)
    expect(all.out).toContain('→2 #1 left:hello-left') // the child's name and message type
    expect(all.out).toContain('right:hello-right')

    const left = sd('run', 'composed-test', '--width', '120', '--proto', 'left')
    expect(left.code).toBe(0)
    expect(left.out).toContain('left:hello-left')
    expect(left.out).not.toContain('right:hello-right') // (the counts under it still list it)
    expect(left.out).not.toContain('"proto":"right"')
    expect(left.out).toContain('crash')
    expect(left.out.split('\n').length).toBeLessThan(all.out.split('\n').length)
  })

  it('refuses a name no entry carries, and says which there are', () => {
    const unknown = sd('run', 'composed-test', '--proto', 'middle')
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('--proto middle: no entry of this run belongs')
    expect(unknown.err).toContain('protocols in this run: left, right')
    const plain = sd('run', 'flood', '--proto', 'left')
    expect(plain.code).toBe(2)
    expect(plain.err).toContain('this run composes no protocols')
    for (const bad of ['', '/left', 'left/'])
      expect(sd('run', 'composed-test', `--proto=${bad}`).code).toBe(2)
  })
})
