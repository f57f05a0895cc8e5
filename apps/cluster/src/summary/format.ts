/** The summary in words, for the terminal. */
import type { Summary } from '../summary.js'
import { describeOperation } from './linearizability.js'

export function formatSummary(s: Summary): string {
  const lines: string[] = []
  const verdict = s.ok ? 'all checks held' : `${s.violations.length + s.errors.length} problem(s)`
  if (s.partial === undefined)
    lines.push(`Summary (${s.mode}, ${s.nodes} nodes, ${s.seconds} s): ${verdict}`)
  else
    lines.push(
      `Partial summary (${s.mode}, ${s.nodes} nodes, interrupted by ${s.partial.signal} at ${(s.partial.atMs / 1000).toFixed(1)} s, ${((s.partial.atMs - s.workloadStartMs) / 1000).toFixed(1)} s into the ${s.seconds} s workload): ${verdict} until then`,
    )
  const eq = s.counter === s.acknowledged ? '=' : '≠'
  lines.push(
    `  counter            ${s.counter} ${eq} ${s.acknowledged} acknowledged increments (${s.entries} critical sections entered)`,
  )
  lines.push(`  fencing rejections ${s.fencingRejections}`)
  const ops = s.operations
  lines.push(
    `  operations         ${ops.total}: ${ops.ok} ok, ${ops.fail} failed, ${ops.info} indeterminate (${ops.okByKind.acquire} acquires, ${ops.okByKind.read} reads, ${ops.okByKind.write} writes, ${ops.okByKind.release} releases ok)`,
  )
  for (const v of s.linearizability) {
    const what =
      v.verdict === 'linearizable'
        ? 'linearizable'
        : v.verdict === 'unknown'
          ? `unknown: ${v.message}`
          : `NOT linearizable: ${v.message}`
    lines.push(
      `  ${`${v.model} history`.padEnd(18)} ${what} (${v.operations} operations, checked in ${v.checkMs} ms)`,
    )
    if (v.counterexample === undefined) continue
    lines.push(
      `    ${v.minimal ? 'minimal failing sub-history (drop any one operation and it passes)' : 'failing sub-history'}, ms on the run's clock:`,
    )
    for (const o of v.counterexample) lines.push(`      ${describeOperation(o)}`)
  }
  lines.push(
    `  terms              ${s.terms} with a leader (highest ${s.maxTerm}): ${s.leaders.map((l) => `${l.term}:${l.leader}`).join(' ')}`,
  )
  if (s.failovers.length === 0) lines.push('  failovers          none')
  for (const f of s.failovers) {
    lines.push(
      `  failover           ${f.cause} at ${(f.atMs / 1000).toFixed(1)} s: ${f.from} (term ${f.fromTerm}) -> ${
        f.to === undefined ? 'no new leader' : `${f.to} (term ${f.toTerm}) in ${f.ms} ms`
      }`,
    )
  }
  if (s.lockRecoveryMs.length > 0) {
    lines.push(
      `  lock recovery      ${s.lockRecoveryMs.map((ms) => `${ms} ms`).join(', ')} (victim's lease runs out, next holder enters)`,
    )
  }
  for (const c of s.chaos) {
    const what = c.skipped
      ? `skipped: ${c.skipped}`
      : `at ${((c.atMs ?? 0) / 1000).toFixed(1)} s on ${c.targets.join(', ')}${c.deltaMs === undefined ? '' : ` by ${c.deltaMs > 0 ? '+' : ''}${c.deltaMs} ms`}${c.durationMs === undefined ? '' : ` for ${c.durationMs} ms`}`
    lines.push(`  chaos              ${c.kind} ${what}`)
  }
  for (const r of s.restarts) {
    lines.push(
      `  restart            ${r.node} at ${(r.atMs / 1000).toFixed(1)} s found term ${r.storedTerm} in its file (had reported ${r.termBefore})`,
    )
  }
  const m = s.messages
  lines.push(
    `  messages           ${m.sent} sent, ${m.delivered} delivered, ${m.retransmissions} retransmissions, ${m.resent} resent after a restart, ${m.dropped} datagrams refused`,
  )
  if (s.mode === 'netns')
    lines.push(
      `  nft drops          ${s.nftDrops.cut} by the partition, ${s.nftDrops.loss} by the loss rule`,
    )
  const spread = (v: number | undefined) => (v === undefined ? '?' : `${v.toFixed(1)} ms`)
  lines.push(
    `  clock spread       ${spread(s.clockSpreadMs.start)} between the hardware clocks, ${spread(s.clockSpreadMs.end)} between the synchronized clocks at the end`,
  )
  lines.push(`  violations         ${s.violations.length === 0 ? 'none' : ''}`)
  for (const v of s.violations) lines.push(`    - ${v}`)
  for (const e of s.errors) lines.push(`  error              ${e}`)
  return lines.join('\n')
}
