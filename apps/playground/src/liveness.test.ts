import { tokenRing } from '@sd/mutex'
import { SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { main } from './cli.js'
import { failed, summarize } from './report.js'
import type { Scenario } from './scenario.js'
import { startersOf } from './scenarios/election/ring.js'
import { scenarios } from './scenarios/index.js'
import { type Ask, runMutexPlan } from './scenarios/mutex/run.js'

function sd(...argv: string[]) {
  let out = ''
  let err = ''
  const code = main(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) })
  return { code, out, err }
}

interface Summary {
  violations: string[]
  liveness: {
    held: boolean
    unfinished: Array<{ node?: number; what: string; why: string; expected: boolean }>
  }
  result: Record<string, unknown>
}

function json(...argv: string[]): { code: number; summary: Summary } {
  const { code, out } = sd('run', ...argv, '--json')
  return { code, summary: JSON.parse(out) }
}

/** The ring of the run: nodes 2 and 4 ask three times each; node 2 crashes at 30 ms. */
function ringAsks(): Ask[] {
  return [2, 4].flatMap((node) => [10, 60, 110].map((at) => ({ node, at: at + node, hold: 3 })))
}

describe('liveness of the mutual exclusion scenarios', () => {
  it('mutex-token-ring --n 5 --seed 2 --crash 2 serves every request of the live nodes (the token is regenerated within the run)', () => {
    const { code, summary } = json('mutex-token-ring', '--n', '5', '--seed', '2', '--crash', '2')
    expect(code).toBe(0)
    expect(summary.violations).toEqual([])
    expect(summary.liveness).toEqual({
      property: 'every request of a node that stays up is served',
      held: true,
      unfinished: [],
    })
    // Node 4's three requests (node 2's first one died with it at t=30 ms).
    expect((summary.result.order as number[]).filter((id) => id === 4)).toHaveLength(3)
    expect(sd('run', 'mutex-token-ring', '--n', '5', '--seed', '2', '--crash', '2').out).toMatch(
      /^liveness: held \(every request of a node that stays up is served\)$/m,
    )
  })

  it('a run cut short before the token is regenerated is caught: requests named, exit 1', () => {
    const cut = runMutexPlan(
      tokenRing({ holdMs: 2 }),
      {
        ids: [1, 2, 3, 4, 5],
        asks: ringAsks(),
        until: 300, // the scenario's old stop, before the 440 ms regeneration
        faults: (net) => net.at(30, () => net.crash(2)),
      },
      2,
    )
    const open = cut.liveness?.unfinished ?? []
    expect(open.map((u) => u.what)).toEqual([
      'request of node 4 at t=64 ms',
      'request of node 4 at t=114 ms',
    ])
    expect(open.every((u) => !u.expected && /not served by t=300 ms/.test(u.why))).toBe(true)
    expect(failed(summarize('cut', 2, cut))).toBe(true)

    const cutShort: Scenario = {
      name: 'cut-short',
      title: 'the token ring of the issue, stopped at 300 ms (test only)',
      description: 'Node 2 crashes with the token; the run stops before it is regenerated.',
      defaultN: 5,
      minN: 5,
      maxN: 5,
      run: ({ seed }) =>
        runMutexPlan(
          tokenRing({ holdMs: 2 }),
          {
            ids: [1, 2, 3, 4, 5],
            asks: ringAsks(),
            until: 300,
            faults: (net) => net.at(30, () => net.crash(2)),
          },
          seed,
        ),
    }
    scenarios.push(cutShort)
    try {
      const text = sd('run', 'cut-short', '--seed', '2')
      expect(text.code).toBe(1)
      expect(text.out).toMatch(/invariants: all held/)
      expect(text.out).toMatch(
        /LIVENESS FAILED \(every request of a node that stays up is served\):\n {2}- request of node 4 at t=64 ms: not served by t=300 ms/,
      )
      const { code, summary } = json('cut-short', '--seed', '2')
      expect(code).toBe(1)
      expect(summary.violations).toEqual([])
      expect(summary.liveness.held).toBe(false)
    } finally {
      scenarios.splice(scenarios.indexOf(cutShort), 1)
    }
  })

  it('Ricart-Agrawala, Lamport and Maekawa name every request a crashed member blocks, and why, without failing', () => {
    for (const name of ['mutex-ricart-agrawala', 'mutex-lamport']) {
      const { code, summary } = json(name, '--n', '4', '--seed', '3', '--crash', '2')
      expect(code, name).toBe(0)
      expect(summary.liveness.held).toBe(true)
      expect(summary.liveness.unfinished.length).toBeGreaterThan(0)
      for (const u of summary.liveness.unfinished) {
        expect(u.expected).toBe(true)
        expect(u.why).toMatch(/blocked by design: .* crashed 2 never answers/)
      }
    }
    const maekawa = json('mutex-maekawa', '--crash', '5')
    expect(maekawa.code).toBe(0)
    const blocked = maekawa.summary.liveness.unfinished
    expect(blocked.length).toBeGreaterThan(0)
    // n = 9, a 3 x 3 grid: node 5 is in the quorums of 2, 4, 6 and 8 (its row and column).
    expect(blocked.filter((u) => /holds crashed 5/.test(u.why)).map((u) => u.node)).toEqual(
      expect.arrayContaining([2, 4, 6, 8]),
    )
    expect(sd('run', 'mutex-maekawa', '--crash', '5').out).toMatch(
      /left undone because the algorithm blocks here, as its description says:\n {2}- request of node \d+ at t=\d+ ms: blocked by design/,
    )
  })
})

describe('liveness over seeds and crashes (property, bounded by count)', () => {
  /** Every scenario of @sd/mutex and @sd/election but the quorum's (its fault plan is fixed). */
  const names = [
    'mutex-centralized',
    'mutex-ricart-agrawala',
    'mutex-lamport',
    'mutex-token-ring',
    'mutex-maekawa',
    'election-bully',
    'election-ring',
    'election-chang-roberts',
    'election-yoyo',
  ]
  const SEEDS = 12

  it('every run serves every live request (agrees on a leader), or names what is left with the reason its algorithm blocks', () => {
    for (const name of names) {
      const scenario = scenarios.find((s) => s.name === name)!
      const n = Math.min(scenario.defaultN, 6)
      const first = scenario.firstId ?? 1
      const crashes = scenario.crashes
        ? [undefined, ...Array.from({ length: n }, (_, i) => first + i)]
        : [undefined]
      for (let seed = 1; seed <= SEEDS; seed++) {
        for (const crash of crashes) {
          const args = [name, '--n', String(n), '--seed', String(seed)]
          if (crash !== undefined) args.push('--crash', String(crash))
          const { code, summary } = json(...args)
          const where = `sd run ${args.join(' ')}`
          expect(summary.violations, where).toEqual([])
          expect(summary.liveness.held, `${where}: ${JSON.stringify(summary.liveness)}`).toBe(true)
          expect(code, where).toBe(0)
          for (const u of summary.liveness.unfinished) {
            expect(u.expected, where).toBe(true)
            expect(u.why, where).toMatch(/^blocked by design(, indirectly)?: /)
            expect(crash, `${where}: left undone without a crash`).toBeDefined()
          }
        }
      }
    }
  })
})

describe('election-ring defaults', () => {
  it("--n 3 (the crashed node 2 was the only initiator) runs the texts' story: two starters, one leader", () => {
    const { code, summary } = json('election-ring', '--n', '3')
    expect(code).toBe(0)
    expect(summary.violations).toEqual([])
    expect(summary.liveness.held).toBe(true)
    expect(summary.result.leader).toBe(1)
    expect(summary.result.agreed).toBe(true)
    expect(summary.result.history).toEqual([{ leader: 1, term: summary.result.term }])
  })

  it('starters: 2 and 5 when up, the lowest live ids making up two, none with all down', () => {
    expect(startersOf([0, 1, 2, 3, 4, 5, 6, 7], [7])).toEqual([2, 5])
    expect(startersOf([0, 1, 2], [2])).toEqual([0, 1])
    expect(startersOf([0, 1, 2, 3], [3])).toEqual([2, 0])
    expect(startersOf([0, 1, 2], [0, 1])).toEqual([2])
    expect(startersOf([0, 1, 2], [0, 1, 2])).toEqual([])
  })

  it('every size from 3 to 8 passes with its default crash', () => {
    for (let n = 3; n <= 8; n++) {
      const { code, summary } = json('election-ring', '--n', String(n))
      expect(code, `n=${n}`).toBe(0)
      expect(summary.result.leader, `n=${n}`).toBe(n - 2)
    }
  })
})

describe('a scenario without a liveness report', () => {
  it('reports liveness null and is judged on its invariants alone', () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch([1], () => ({ onMessage() {} }))
    net.run()
    const summary = summarize('x', 1, { net, result: {}, violations: [] })
    expect(summary.liveness).toBeNull()
    expect(failed(summary)).toBe(false)
  })
})
