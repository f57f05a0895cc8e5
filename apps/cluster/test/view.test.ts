import { describe, expect, it } from 'vitest'
import {
  Display,
  formatClock,
  type NodeRow,
  renderTable,
  statusLine,
  TABLE_WIDTH,
  type ViewState,
} from '../src/view.js'

const T = 2 ** 32
const row = (over: Partial<NodeRow>): NodeRow => ({
  id: 'n1',
  address: '10.77.0.1:7000',
  state: 'up',
  cut: false,
  role: 'follower',
  term: 2,
  leader: 'n2',
  clockMs: 0.4,
  holds: undefined,
  coordinator: false,
  ...over,
})
const state: ViewState = {
  mode: 'netns',
  elapsedMs: 7400,
  // The run's clock counts from before the nodes started: ahead of the workload's.
  runMs: 11_400,
  seconds: 20,
  rows: [
    row({}),
    row({
      id: 'n2',
      address: '10.77.0.2:7000',
      role: 'leader',
      coordinator: true,
      holds: 2 * T + 14,
      clockMs: -1.25,
    }),
    row({
      id: 'n3',
      address: '10.77.0.3:7000',
      state: 'down',
      role: undefined,
      term: undefined,
      leader: undefined,
      clockMs: undefined,
    }),
  ],
  counter: 41,
  acknowledged: 41,
  fencingRejections: 1,
  terms: 2,
  violations: 0,
  chaos: 'kill-leader: n3 killed, restart in 2500 ms',
  log: ['  1.5 s  kill-leader: SIGKILL n3'],
}

describe('the live view', () => {
  it('renders a row per node with host, state, role, term, clock and lock', () => {
    const lines = renderTable(state)
    expect(lines[0]).toBe('sd cluster · netns · 3 nodes · 7.4 s / 20 s')
    expect(lines[1]).toBe('counter 41 = 41 acknowledged · fenced 1 · terms 2 · violations 0')
    expect(lines[3]).toMatch(/^node\s+host\s+state\s+role\s+term\s+clock\s+lock$/)
    expect(lines[4]).toMatch(/^n1\s+10\.77\.0\.1:7000\s+up\s+follows n2\s+2\s+\+0\.4 ms\s+-$/)
    expect(lines[5]).toContain('leader+lock')
    expect(lines[5]).toContain('-1.3 ms')
    expect(lines[5]).toContain('holds T2#14')
    expect(lines[6]).toMatch(/^n3\s+10\.77\.0\.3:7000\s+down\s+-\s+-\s+-\s+-$/)
    expect(lines.at(-2)).toBe('chaos: kill-leader: n3 killed, restart in 2500 ms')
    // The columns line up.
    expect(lines[4]!.indexOf('10.77')).toBe(lines[3]!.indexOf('host'))
  })

  it('fits 80 columns with wide cells: 5 nodes on loopback, term 99, token T99#9999, a stepped clock', () => {
    const wide = (i: number): NodeRow =>
      row({
        id: `n${i}`,
        address: `127.0.0.1:${40000 + i}`,
        state: i === 5 ? 'starting' : 'up',
        cut: i === 4,
        role: i === 1 ? 'leader' : 'follower',
        coordinator: i === 1,
        leader: i === 1 ? 'n1' : 'n12',
        term: 99,
        clockMs: -2049.96,
        holds: 99 * T + 9_999,
      })
    const v: ViewState = {
      ...state,
      mode: 'loopback',
      elapsedMs: 29_999,
      seconds: 30,
      rows: [1, 2, 3, 4, 5].map(wide),
      counter: 99_999,
      acknowledged: 99_999,
      fencingRejections: 99,
      terms: 99,
      violations: 9,
    }
    const lines = renderTable(v)
    const table = lines.slice(0, 4 + v.rows.length)
    for (const l of table) expect([...l].length, l).toBeLessThanOrEqual(TABLE_WIDTH)
    expect(TABLE_WIDTH).toBeLessThan(80)
    expect(lines[3]!.trimEnd().endsWith('lock')).toBe(true)
    expect(lines[4]).toContain('leader+lock')
    expect(lines[5]).toContain('follows n12')
    expect(lines[5]).toContain('holds T99#9999')
    // The columns still line up: every row's lock cell starts under its title.
    const at = lines[3]!.lastIndexOf('lock')
    for (const l of lines.slice(5, 8)) expect(l.indexOf('holds')).toBe(at)
  })

  it('a cut-off node says so; plain mode gives one status line, on the run clock', () => {
    const cut = { ...state, rows: [row({ cut: true })] }
    expect(renderTable(cut)[4]).toContain('cut off')
    expect(statusLine(state)).toBe(
      '[11.4 s] n1:F2 n2:L2:holds T2#14 n3:down · counter 41/41 · rejections 1 · terms 2',
    )
    expect(formatClock(-0.04)).toBe('-0.0 ms')
  })

  it('redraws in place on a terminal, cut to its width; plain lines otherwise', () => {
    let out = ''
    const tty = new Display(
      true,
      (t) => (out += t),
      () => {},
      () => 40,
    )
    tty.draw(state)
    const first = out
    expect(first.startsWith('\x1b[J')).toBe(true)
    for (const l of first.slice(3).trimEnd().split('\n')) expect([...l].length).toBeLessThan(40)
    out = ''
    tty.draw(state)
    expect(out.startsWith(`\x1b[${renderTable(state).length}F\x1b[J`)).toBe(true)

    const lines: string[] = []
    const plain = new Display(
      false,
      () => {},
      (l) => lines.push(l),
    )
    plain.note(1500, 'kill-leader: SIGKILL n3')
    plain.draw(state)
    plain.draw({ ...state, elapsedMs: 8000 }) // within 2 s of the last status: nothing
    plain.draw({ ...state, elapsedMs: 9500 })
    expect(lines).toEqual([
      '[1.5 s] kill-leader: SIGKILL n3',
      statusLine(state),
      statusLine({ ...state, elapsedMs: 9500 }),
    ])
  })
})
