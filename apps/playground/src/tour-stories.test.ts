/**
 * The tour at 80 columns tells every worked example to its end: the rows that conclude each
 * story are in the output, where the diagram used to be cut at 60 rows ("… N more events").
 */
import { isRecord, type NodeId, type TraceEvent } from '@sd/transport'
import { traceOfType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { defaults } from './args.js'
import { main } from './cli.js'
import { scenarios } from './scenarios/index.js'

const RAILS = new Set(['│', '┊', '┃'])

/** A drawn row: its time as printed, the column it is in, and the cell's text. */
interface Row {
  time: number
  decimals: number
  node: NodeId
  text: string
}

function tourSections(): Map<string, string> {
  const out: string[] = []
  const code = main(['tour', '--all', '--width', '80'], { out: (t) => out.push(t), err: () => {} })
  expect(code).toBe(0)
  const sections = new Map<string, string>()
  for (const part of out.join('\n').split('\n=== ').slice(1))
    sections.set(part.slice(0, part.indexOf(' ===')), part)
  return sections
}

/** The rows of a section's diagram: a cell's column is the number of rails before it. */
function rowsOf(section: string, nodes: readonly NodeId[]): Row[] {
  const rows: Row[] = []
  for (const line of section.split('\n')) {
    const m = /^ *(\d+(?:\.(\d+))?) {2}(.*)$/.exec(line)
    if (m === null) continue
    const chars = [...(m[3] ?? '')]
    let column = 0
    let i = 0
    for (; i < chars.length; i++) {
      const c = chars[i] as string
      if (RAILS.has(c)) column++
      else if (c !== ' ') break
    }
    const node = nodes[column]
    if (node === undefined) continue
    rows.push({
      time: Number(m[1]),
      decimals: m[2]?.length ?? 0,
      node,
      text: chars.slice(i).join('').trim(),
    })
  }
  return rows
}

function hasRow(rows: readonly Row[], t: number, node: NodeId, start: string): boolean {
  return rows.some(
    (r) => r.node === node && r.time === Number(t.toFixed(r.decimals)) && r.text.startsWith(start),
  )
}

/** What each scenario's story ends with, found in its own trace (the run the tour draws). */
type Concluding = (
  trace: readonly TraceEvent[],
) => Array<{ t: number; node: NodeId; start: string; what: string }>

const emitted = (e: TraceEvent, type: string): boolean =>
  e.type === 'emit' && JSON.stringify(e.event).includes(`"type":"${type}"`)

const SYMBOL: Partial<Record<TraceEvent['type'], string>> = {
  emit: '★',
  crash: '💥',
  restart: '↻',
  send: '→',
  deliver: '←',
  request: '▶',
  'timer-fire': '⏰',
}

function nodeOf(e: TraceEvent): NodeId | undefined {
  if (e.type === 'send') return e.from
  if (e.type === 'deliver') return e.to
  return 'node' in e ? e.node : undefined
}

/**
 * Where each node's story ends: its last emit, crash or restart; in a run that emits nothing
 * (the clocks' examples), its last message.
 */
const lastOfEachNode: Concluding = (trace) => {
  const story = trace.some((e) => e.type === 'emit')
    ? ['emit', 'crash', 'restart']
    : ['send', 'deliver', 'crash', 'restart']
  const last = new Map<NodeId, TraceEvent>()
  for (const e of trace) {
    const node = nodeOf(e)
    if (node !== undefined && story.includes(e.type)) last.set(node, e)
  }
  return [...last].map(([node, e]) => ({
    t: e.t,
    node,
    start: SYMBOL[e.type] ?? '?',
    what: `last ${e.type} of node ${String(node)}`,
  }))
}

/** Named rows beyond every node's last one, per worked example. */
const SPECIFIC: Record<string, Concluding> = {
  // The slide's two jumps: R at 1 gets (M2, 3) and goes to 4; P at 2 gets (M4, 8) and goes to 9.
  'lamport-pqr': (trace) =>
    traceOfType(trace, 'deliver')
      .filter((e) => e.to === 3 || e.to === 1)
      .map((e) => ({
        t: e.t,
        node: e.to,
        start: '←',
        what: `the receipt that jumps on node ${String(e.to)}`,
      })),
  'election-bully': (trace) => [
    ...trace
      .filter((e) => e.type === 'crash' || e.type === 'restart')
      .map((e) => ({
        t: e.t,
        node: e.node,
        start: e.type === 'crash' ? '💥' : '↻',
        what: `${e.type} of 7 (7 fails, 7 returns)`,
      })),
    // 6 wins after 7 fails: its announcement, and every live node following it.
    ...traceOfType(trace, 'emit')
      .filter((e) => e.t > 60 && e.t < 130 && emitted(e, 'follower'))
      .map((e) => ({ t: e.t, node: e.node, start: '★', what: 'follows 6' })),
  ],
  'deadlock-cmh': (trace) => {
    const home = trace.find(
      (e) => e.type === 'send' && /"type":"probe"/.test(JSON.stringify(e.msg)) && probeHome(e.msg),
    )
    const deliver = trace.find(
      (e) => e.type === 'deliver' && home?.type === 'send' && e.id === home.id,
    )
    const found = traceOfType(trace, 'emit').filter((e) => emitted(e, 'deadlock'))
    return [
      ...(deliver?.type === 'deliver'
        ? [{ t: deliver.t, node: deliver.to, start: '←', what: 'the probe back at its initiator' }]
        : []),
      ...found.map((e) => ({
        t: e.t,
        node: e.node,
        start: '★',
        what: 'deadlock declared',
      })),
    ]
  },
  'mutex-centralized': (trace) =>
    trace
      .filter((e) => e.type === 'crash')
      .map((e) => ({ t: e.t, node: e.node, start: '💥', what: 'the coordinator crashes' })),
}

function probeHome(msg: unknown): boolean {
  let m = msg
  while (isRecord(m) && typeof m.proto === 'string' && typeof m.msg === 'object') m = m.msg
  return isRecord(m) && m.initiator !== undefined && m.initiator === m.receiver
}

/** The texts' worked examples, each with the scenario that tells it. */
const WORKED = [
  'lamport',
  'lamport-pqr',
  'vector',
  'make',
  'cristian',
  'ntp',
  'mutex-ricart-agrawala',
  'election-bully',
  'election-ring',
  'mutex-quorum',
  'deadlock-cmh',
  'mutex-centralized',
  'mutex-token-ring',
]

describe('the tour at 80 columns', () => {
  const sections = tourSections()

  it('cuts no scenario short', () => {
    for (const [name, text] of sections) expect(text, name).not.toMatch(/more events/)
  })

  it.each(WORKED)('%s reaches its conclusion', (name) => {
    const scenario = scenarios.find((s) => s.name === name)
    if (scenario === undefined) throw new Error(`no scenario ${name}`)
    const request = defaults(scenario)
    const run = scenario.run({ n: request.n, seed: request.seed, crash: request.crash })
    const rows = rowsOf(sections.get(name) ?? '', run.net.nodeIds)
    const wanted = [...lastOfEachNode(run.net.trace), ...(SPECIFIC[name]?.(run.net.trace) ?? [])]
    expect(wanted.length, name).toBeGreaterThan(0)
    for (const w of wanted)
      expect(
        hasRow(rows, w.t, w.node, w.start),
        `${name}: ${w.what} at t=${w.t} on ${String(w.node)}`,
      ).toBe(true)
  })

  it('shows the specific story rows of bully, CMH and the coordinator failover', () => {
    for (const name of Object.keys(SPECIFIC)) {
      const scenario = scenarios.find((s) => s.name === name)
      if (scenario === undefined) throw new Error(`no scenario ${name}`)
      const run = scenario.run({ ...defaults(scenario) })
      expect(SPECIFIC[name]?.(run.net.trace).length, name).toBeGreaterThan(0)
    }
  })
})
