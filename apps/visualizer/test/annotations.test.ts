import { describe, expect, it } from 'vitest'
import { arrowLabel, markLabel, stateLanes } from '../src/annotations.js'
import { colorAt, typeColors } from '../src/colors.js'
import { traceToDiagram } from '../src/trace.js'

const lock = (event: Record<string, unknown>) => ({ proto: 'lock', event })

function run() {
  return traceToDiagram({
    nodes: ['n1', 'n2', 'n3'],
    events: [
      {
        t: 1,
        type: 'emit',
        node: 'n1',
        event: { proto: 'election', event: { type: 'leader', leader: 'n1', term: 2 } },
      },
      { t: 2, type: 'emit', node: 'n2', event: { type: 'leader', leader: 'n1', term: 2 } },
      {
        t: 3,
        type: 'emit',
        node: 'n2',
        event: lock({ type: 'requested', resource: 'default', node: 'n2' }),
      },
      {
        t: 4,
        type: 'emit',
        node: 'n2',
        event: lock({ type: 'acquired', resource: 'default', token: 7 }),
      },
      {
        t: 5,
        type: 'emit',
        node: 'n2',
        event: lock({ type: 'released', resource: 'default', token: 7 }),
      },
      { t: 6, type: 'pause', node: 'n3' },
      { t: 7, type: 'resume', node: 'n3', backlog: 2 },
      { t: 8, type: 'crash', node: 'n1' },
      { t: 9, type: 'restart', node: 'n1' },
      { t: 10, type: 'emit', node: 'n3', event: { type: 'deadlock', cycle: [1, 2, 3], victim: 3 } },
      {
        t: 11,
        type: 'emit',
        node: 'n3',
        event: { type: 'adjusted', algorithm: 'berkeley', offsetMs: -3.25 },
      },
      { t: 12, type: 'emit', node: 'n3', event: { type: 'ignored', from: 'n1', reason: 'x' } },
    ],
  })
}

describe('labelled marks', () => {
  it('label the events that tell the story with their token, term, cycle or offset', () => {
    const labels = run().events.map(markLabel)
    expect(labels).toEqual([
      'leader n1 t2',
      'leader n1 t2',
      undefined,
      'acquired #7',
      'released #7',
      undefined,
      undefined,
      undefined,
      undefined,
      'deadlock 1→2→3→1 ✗3',
      'adjusted -3.25 ms',
      undefined,
    ])
  })
})

describe('arrow labels', () => {
  it('carry the payload that tells the story: CMH probes, ring elections, coordinators', () => {
    const probe = {
      type: 'probe',
      initiator: 5,
      computation: 1,
      sender: 5,
      receiver: 2,
      resource: 'r2',
      path: [],
    }
    expect(arrowLabel('probe', probe)).toBe('probe (5,5,2)')
    // The graph variant, inside a composition envelope.
    expect(
      arrowLabel('probe', {
        proto: 'detect',
        msg: { type: 'probe', initiator: 1, sender: 2, receiver: 3, path: [1, 2] },
      }),
    ).toBe('probe (1,2,3)')
    expect(
      arrowLabel('election', { type: 'election', list: [2, 3, 4], out: [], max: 0, round: 1 }),
    ).toBe('election [2,3,4]')
    expect(
      arrowLabel('coordinator', { type: 'coordinator', leader: 6, term: 6, members: [] }),
    ).toBe('coordinator 6 t6')
    // Anything else, or a payload of the wrong shape: the type alone.
    expect(arrowLabel('ping', { type: 'ping' })).toBe('ping')
    expect(arrowLabel('probe', { type: 'probe', initiator: 1 })).toBe('probe')
    expect(arrowLabel('election', { type: 'election', list: 'x' })).toBe('election')
    expect(arrowLabel('x', 'x')).toBe('x')
  })

  it('label a wall-clock step with its jump', () => {
    const d = traceToDiagram({
      nodes: [1],
      events: [
        { t: 1, type: 'clock-step', node: 1, deltaMs: 500 },
        { t: 2, type: 'clock-step', node: 1, deltaMs: -1.25 },
      ],
    })
    expect(d.events.map(markLabel)).toEqual(['clock +500 ms', 'clock -1.25 ms'])
  })
})

describe('state lanes', () => {
  it('follow each process through leader / follower, waiting / holder, paused and crashed', () => {
    const d = run()
    const seqOf = (t: number) => d.events.find((e) => e.t === t)!.seq
    const lanes = stateLanes(d).map((s) => ({
      p: s.process,
      state: s.state,
      from: s.fromSeq,
      to: s.toSeq,
    }))
    expect(lanes).toEqual([
      { p: 'n1', state: 'leader', from: seqOf(1), to: seqOf(8) },
      { p: 'n2', state: 'follower', from: seqOf(2), to: seqOf(3) },
      { p: 'n2', state: 'waiting', from: seqOf(3), to: seqOf(4) },
      { p: 'n2', state: 'holder', from: seqOf(4), to: seqOf(5) },
      { p: 'n2', state: 'follower', from: seqOf(5), to: undefined },
      { p: 'n3', state: 'paused', from: seqOf(6), to: seqOf(7) },
      // A crash loses the state: after the restart n1 is neither leader nor follower.
      { p: 'n1', state: 'crashed', from: seqOf(8), to: seqOf(9) },
    ])
  })

  it('draws pause and resume as their own events, not as crashes', () => {
    const d = run()
    expect(
      d.events.filter((e) => e.kind === 'pause' || e.kind === 'resume').map((e) => e.label),
    ).toEqual(['⏸ paused', '⏵ resumed (2 waiting)'])
    expect(d.down.map((b) => b.process)).toEqual(['n1'])
  })
})

describe('message type colors', () => {
  it('stay distinct beyond ten types, and far apart', () => {
    const types = Array.from({ length: 40 }, (_, i) => `type-${String(i).padStart(2, '0')}`)
    const colors = [...typeColors(types).values()]
    expect(new Set(colors).size).toBe(40)
    const rgb = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16))
    for (let i = 0; i < 24; i++)
      for (let j = 0; j < i; j++) {
        const [a, b] = [rgb(colorAt(i)), rgb(colorAt(j))]
        const dist = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!)
        expect(dist, `colors ${i} ${colorAt(i)} and ${j} ${colorAt(j)}`).toBeGreaterThan(30)
      }
  })
})

describe('tokenText', () => {
  it('shows a term-packed token as term:count, and a small one as it is', async () => {
    const { tokenText } = await import('../src/annotations.js')
    expect(tokenText(4294967303)).toBe('1:7')
    expect(tokenText(2 * 2 ** 32)).toBe('2:0')
    expect(tokenText(41)).toBe('41')
  })
})
