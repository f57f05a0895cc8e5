import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeId, Protocol, TraceDocument, TraceEvent } from '@sd/transport'
import { type ExploreScenario, explore, replay } from '@sd/transport/explore'
import { afterAll, describe, expect, it } from 'vitest'
import { sdWith } from './broken-variants.js'
import { LOOP_BEGINS, markedLassoTrace, turnEnds } from './lasso-marks.js'
import type { CheckSpec } from './spec.js'

const dir = mkdtempSync(join(tmpdir(), 'sd-lasso-marks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Two nodes pass a ball back and forth forever; the goal "node 1 is done" never holds. */
function pingPong(self: NodeId): Protocol<'ball', never, never> {
  return {
    start(ctx) {
      if (self === 1) ctx.send(2, 'ball')
    },
    onMessage(from, msg, ctx) {
      ctx.send(from, msg)
    },
    snapshot: () => null,
  }
}

const pingPongCheck: CheckSpec = {
  scenario: 'ping-pong-forever',
  what: 'two nodes pass a ball forever',
  defaultN: 2,
  minN: 2,
  maxN: 2,
  defaults: { depth: 20 },
  liveness: () => [{ name: 'node 1 is done', holds: () => false }],
  build: (): ExploreScenario => ({
    setup: (net) => net.launch([1, 2], pingPong),
    invariant: () => undefined,
    history: () => null,
  }),
}

const marks = (events: readonly TraceEvent[]) =>
  events.flatMap((e, i) => (e.type === 'mark' ? [{ i, label: e.label }] : []))

function lassoOf(spec: CheckSpec) {
  const scenario = spec.build(spec.defaultN)
  const options = typeof spec.defaults === 'function' ? spec.defaults(3) : spec.defaults
  const result = explore({ ...scenario, liveness: spec.liveness!(spec.defaultN) }, options)
  return { scenario, lasso: result.liveness![0]!.lasso! }
}

describe('sd check --trace: a replayed lasso carries marks where its loop begins and each turn ends', () => {
  it('a cycle: loop begins, turn 1 ends, turn 2 ends, in that order, at the right places', () => {
    const { scenario, lasso } = lassoOf(pingPongCheck)
    expect(lasso.kind).toBe('cycle')
    const doc = markedLassoTrace(scenario, lasso)
    const found = marks(doc.events)
    expect(found.map((m) => m.label)).toEqual([LOOP_BEGINS, turnEnds(1), turnEnds(2)])
    // Without its marks, the trace is the replay's exactly.
    const whole = replay(scenario, lasso.schedule, { maxSteps: 0 }).net.trace
    expect(doc.events.filter((e) => e.type !== 'mark')).toEqual(whole)
    // The prefix replayed alone ends where the loop begins; each turn is the same length.
    const prefix = replay(scenario, lasso.prefix, { maxSteps: 0 }).net.trace
    expect(doc.events.slice(0, found[0]!.i)).toEqual(prefix)
    const turn1 = found[1]!.i - found[0]!.i
    const turn2 = found[2]!.i - found[1]!.i
    expect(turn1).toBeGreaterThan(1)
    expect(turn2).toBe(turn1)
    expect(found[2]!.i).toBe(doc.events.length - 1)
    // Marks are stamped in time order with the events around them.
    const times = doc.events.map((e) => e.t)
    expect([...times].sort((a, b) => a - b)).toEqual(times)
  })

  it('sd check writes the marked trace and draws the marks', () => {
    const file = join(dir, 'cycle.json')
    const { code, out } = sdWith([pingPongCheck], 'ping-pong-forever', '--trace', file)
    expect(code, out).toBe(1)
    expect(out).toContain(LOOP_BEGINS)
    expect(out).toContain(turnEnds(2))
    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
    expect(marks(doc.events).map((m) => m.label)).toEqual([LOOP_BEGINS, turnEnds(1), turnEnds(2)])
  })
})
