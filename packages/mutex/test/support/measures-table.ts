/**
 * The README table "Measured beside the theory": the course texts' figures for each algorithm,
 * evaluated at n, next to what `measures.ts` measures in the simulator. The README keeps the
 * rendered table between MEASURES_START and MEASURES_END; test/measures.test.ts fails when it
 * is stale, and `pnpm measures --write` (in packages/mutex) rewrites it.
 */
import {
  ALGORITHMS,
  type Algorithm,
  type Load,
  type Measured,
  maekawaPeers,
  measure,
  type Summary,
  TABLE_SIZES,
} from './measures.js'

export const MEASURES_START = '<!-- measures:start -->'
export const MEASURES_END = '<!-- measures:end -->'

export interface Theory {
  messages: string
  clientDelay: string
  syncDelay: string
}

/** The texts' figures (messages per entry and exit; delays in message delays) at n. */
export function theoryOf(key: Algorithm['key'], n: number, load: Load): Theory {
  const heavy = load === 'heavy'
  switch (key) {
    case 'centralized':
      return { messages: '3', clientDelay: '2', syncDelay: '2' }
    case 'ricart-agrawala':
      return { messages: `2(n-1) = ${2 * (n - 1)}`, clientDelay: '2', syncDelay: '1' }
    case 'ricart-agrawala-always':
      // Each deferred answer is a DENY now and an OK later: at most one more per peer.
      return {
        messages: heavy
          ? `2(n-1) to 3(n-1) = ${2 * (n - 1)} to ${3 * (n - 1)}`
          : `2(n-1) = ${2 * (n - 1)}`,
        clientDelay: '2',
        syncDelay: '1',
      }
    case 'lamport':
      return { messages: `3(n-1) = ${3 * (n - 1)}`, clientDelay: '2', syncDelay: '1' }
    case 'maekawa': {
      const root = Math.sqrt(n)
      const peers = maekawaPeers(n)
      const k1 = peers.reduce((s, p) => s + p, 0) / peers.length
      return {
        messages: heavy
          ? `3√n to 5√n = ${num(3 * root)} to ${num(5 * root)} (grid: ${num(3 * k1)} to ${num(5 * k1)})`
          : `3√n = ${num(3 * root)} (grid: ${num(3 * k1)})`,
        clientDelay: '2',
        syncDelay: '2',
      }
    }
    case 'token-ring':
      return {
        messages: heavy ? '1' : 'unbounded',
        clientDelay: `0 to n = 0 to ${n}`,
        syncDelay: '1',
      }
    case 'quorum':
      return {
        messages: heavy ? `3n = ${3 * n} per attempt` : `3n = ${3 * n}`,
        clientDelay: '2',
        syncDelay: '2',
      }
  }
}

/** An integer as is, anything else with two decimals. */
export function num(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2)
}

/** Mean, with the range when it is one. */
function delay(s: Summary | undefined): string {
  if (s === undefined) return '—'
  return s.min === s.max ? num(s.mean) : `${num(s.mean)} (${num(s.min)}–${num(s.max)})`
}

function row(m: Measured): string {
  const theory = theoryOf(m.algorithm.key, m.n, m.load)
  const ring = m.algorithm.key === 'token-ring'
  let messages = num(m.messagesPerEntry)
  if (ring) messages += m.load === 'light' ? ' (run stopped)' : ' (a pass)'
  const sync = m.load === 'light' ? '—' : `${theory.syncDelay} / ${delay(m.syncDelay)}`
  return `| ${m.algorithm.name} | ${m.n} | ${m.load} | ${theory.messages} / ${messages} | ${theory.clientDelay} / ${delay(m.clientDelay)} | ${sync} |`
}

/** Measures every algorithm at each n, light and heavy, and renders the markdown table. */
export function renderMeasuresTable(sizes: readonly number[] = TABLE_SIZES): string {
  const lines = [
    '| algorithm | n | load | messages per entry: theory / measured | client delay: theory / measured | sync delay: theory / measured |',
    '| --- | --- | --- | --- | --- | --- |',
  ]
  for (const algo of ALGORITHMS) {
    for (const n of sizes) {
      for (const load of ['light', 'heavy'] as const) lines.push(row(measure(algo, n, load)))
    }
  }
  return lines.join('\n')
}

/** The table as the README holds it, markers included. */
export const readmeBlock = (table: string): string => `${MEASURES_START}\n${table}\n${MEASURES_END}`

/** The README's block (markers included), or undefined when the markers are missing. */
export function findReadmeBlock(readme: string): string | undefined {
  const start = readme.indexOf(MEASURES_START)
  const end = readme.indexOf(MEASURES_END, start)
  if (start < 0 || end < 0) return undefined
  return readme.slice(start, end + MEASURES_END.length)
}
