/**
 * What a run comes to, computed from what the parent recorded (pure, so it is unit-tested): the
 * counter against the acknowledged increments, failover times, terms, fencing rejections, and
 * every safety rule checked from the events the nodes reported.
 *
 * Safety rules (any broken one is a violation):
 * - judged globally, on the merged events of every node against the nemesis's faults, with the
 *   simulator's checkers (checks.ts): no two valid leases overlapping in real time, fencing tokens
 *   strictly increasing in entry order across all nodes, one leader per term, terms never going
 *   back at a node, no leader on a minority side;
 * - each coordinator grants increasing tokens (across its restarts too), and every token belongs
 *   to a term some leader was elected in (the term leads the token);
 * - the counter equals the acknowledged increments exactly, no accepted write lost another, and
 *   the nodes' history agrees (every increment acknowledged to a node is in, nothing beyond the
 *   indeterminate writes);
 * - durable state survives: a restarted node finds in its file a term at least as high as the
 *   last it reported before it died.
 */
import type { EmittedEvent, FaultEvent } from '@sd/transport'
import type { ChaosKind } from './args.js'
import { globalViolations } from './checks.js'
import { countHistory, type HistoryCounts, historyViolations, type Operation } from './history.js'
import { formatToken, termOfToken } from './node/protocol.js'
import type { StoreState } from './store.js'

export interface NodeEvent {
  node: string
  t: number
  p: 'election' | 'lock' | 'sync'
  e: Record<string, unknown>
}

export interface FaultRecord {
  kind: ChaosKind
  /** When it was applied (machine ms); absent when skipped. */
  t?: number
  /** When it ended: the restart, the heal, the SIGCONT. */
  until?: number
  /** The nodes it hit. */
  targets: string[]
  /** For kill-holder and pause-holder: the token the victim held. */
  token?: number
  /** For clock-step: how far the wall clock jumped (it is stepped back at `until`). */
  deltaMs?: number
  /** Why it did not run. */
  skipped?: string
}

export interface BootRecord {
  node: string
  t: number
  /** What its state file held at boot. */
  stored: { term: number; boots: number; lockTerm: number }
}

export interface RunRecord {
  mode: 'netns' | 'loopback'
  nodes: string[]
  /** The workload's length as asked (s). */
  seconds: number
  /** When the workload started and ended (machine ms). */
  startedAt: number
  endedAt: number
  /** The time origin of the run (machine ms): the checkers and the trace count from it. */
  origin: number
  /** In the order each node reported them (per node, the order they happened). */
  events: NodeEvent[]
  faults: FaultRecord[]
  /**
   * Every fault as the checkers take it (machine ms): kills and deaths (`crash`), restarts,
   * SIGSTOP / SIGCONT (`pause` / `resume`), partitions and heals, wall clock steps.
   */
  faultEvents: FaultEvent[]
  /** Every operation of the workload, with invocation and completion times. */
  history: Operation[]
  boots: BootRecord[]
  /** The counter file as read back at the end, and the store's own findings. */
  store: StoreState
  anomalies: string[]
  /** Totals over every incarnation of every node. */
  messages: { sent: number; delivered: number; retransmissions: number; dropped: number }
  /** Packets the fault rules dropped (namespace mode). */
  nftDrops: { cut: number; loss: number }
  /**
   * Largest minus smallest clock (ms): of the nodes' hardware clocks (their skews), and of their
   * software clocks at the end, after Berkeley's corrections.
   */
  clockSpreadMs: { start: number | undefined; end: number | undefined }
  /** Nodes that failed on their own (a protocol error, an unexpected exit). */
  errors: string[]
  /** The run was interrupted by this signal at `endedAt`: the record is of what ran until then. */
  interrupted?: string
}

export interface Failover {
  cause: ChaosKind
  /** On the run's clock (ms since its origin, as every `atMs`). */
  atMs: number
  from: string
  fromTerm: number
  to: string | undefined
  toTerm: number | undefined
  /** Until a majority followed a new leader in a higher term; null if that never happened. */
  ms: number | null
}

export interface Summary {
  ok: boolean
  mode: 'netns' | 'loopback'
  nodes: number
  seconds: number
  /**
   * When the workload started, on the run's clock: every `atMs` is ms since the run's origin
   * (t = 0 of the trace and of the run's log, just before the nodes were started).
   */
  workloadStartMs: number
  counter: number
  acknowledged: number
  fencingRejections: number
  /** Terms in which a leader was elected. */
  terms: number
  maxTerm: number
  leaders: Array<{ term: number; leader: string; atMs: number }>
  /** One entry per failover whose new leader was found. */
  failoverMs: number[]
  failovers: Failover[]
  /** After a holder was killed or paused: until another node entered with a newer token (ms). */
  lockRecoveryMs: number[]
  /** Critical sections entered. */
  entries: number
  /** The workload's operations as the nodes saw them (history.ts). */
  operations: HistoryCounts
  chaos: Array<{
    kind: ChaosKind
    atMs?: number
    durationMs?: number
    targets: string[]
    deltaMs?: number
    skipped?: string
  }>
  restarts: Array<{ node: string; atMs: number; storedTerm: number; termBefore: number }>
  messages: RunRecord['messages']
  nftDrops: RunRecord['nftDrops']
  clockSpreadMs: RunRecord['clockSpreadMs']
  violations: string[]
  errors: string[]
  /**
   * Present when the run was interrupted (Ctrl-C): the summary is of what ran until `atMs`, the
   * checks judged that much; the workload was not stopped (operations under way stay
   * indeterminate) and the messages in flight are not counted.
   */
  partial?: { signal: string; atMs: number }
}

const majorityOf = (n: number) => Math.floor(n / 2) + 1
const round = (ms: number) => Math.round(ms)

/** Per term, the elected leader and when a majority of the members first followed it. */
export function leadershipsOf(
  events: readonly NodeEvent[],
  n: number,
): Array<{ term: number; leader: string; t: number }> {
  const followers = new Map<string, Set<string>>()
  const found: Array<{ term: number; leader: string; t: number }> = []
  for (const { node, t, p, e } of [...events].sort((a, b) => a.t - b.t)) {
    if (p !== 'election' || e.type !== 'leader') continue
    const key = `${e.term}:${e.leader}`
    const set = followers.get(key) ?? new Set<string>()
    followers.set(key, set)
    set.add(node)
    if (set.size === majorityOf(n))
      found.push({ term: e.term as number, leader: String(e.leader), t })
  }
  return found
}

/** The leadership a majority followed at time t (the newest one established by then). */
export function leaderAt(
  leaderships: ReadonlyArray<{ term: number; leader: string; t: number }>,
  t: number,
) {
  let best: { term: number; leader: string; t: number } | undefined
  for (const l of leaderships) if (l.t <= t && (best === undefined || l.term > best.term)) best = l
  return best
}

/** Does fault `f` take the leader `leader` away from the majority? */
function hitsLeader(f: FaultRecord, leader: string): boolean {
  // A clock step must not take the leader away: a failover after one is a finding of its own.
  if (f.kind === 'loss' || f.kind === 'clock-step') return false
  return f.targets.includes(leader)
}

export function summarize(run: RunRecord): Summary {
  const n = run.nodes.length
  // The run's clock (the log's and the trace's): ms since the origin.
  const rel = (t: number) => round(t - run.origin)
  const violations: string[] = []

  // ---- the global checks: every node's events at once, against the faults -----------------
  // In the trace's time: ms since the origin, to the microsecond.
  const at = (t: number) => Math.round((t - run.origin) * 1000) / 1000
  const since = (list: ReadonlyArray<{ t: number }>) => list.map((x) => ({ ...x, t: at(x.t) }))
  const emitted = (p: NodeEvent['p']): EmittedEvent[] =>
    run.events.filter((x) => x.p === p).map((x) => ({ node: x.node, t: at(x.t), event: x.e }))
  violations.push(
    ...globalViolations({
      nodes: run.nodes,
      lock: emitted('lock'),
      election: emitted('election'),
      faults: since(run.faultEvents) as FaultEvent[],
    }),
  )
  const announced = new Map<number, string>()
  for (const x of [...run.events].sort((a, b) => a.t - b.t)) {
    if (x.p === 'election' && x.e.type === 'leader' && x.e.leader === x.node) {
      if (!announced.has(x.e.term as number)) announced.set(x.e.term as number, x.node)
    }
  }
  const electedTerms = new Set<number>()
  for (const x of run.events) {
    if (x.p === 'election' && x.e.type === 'leader') electedTerms.add(x.e.term as number)
  }
  const leaderships = leadershipsOf(run.events, n)

  // ---- failovers ----------------------------------------------------------------------------
  const failovers: Failover[] = []
  for (const f of run.faults) {
    if (f.t === undefined) continue
    const before = leaderAt(leaderships, f.t)
    if (before === undefined || !hitsLeader(f, before.leader)) continue
    const next = leaderships
      .filter((l) => l.t >= f.t! && l.term > before.term)
      .sort((a, b) => a.t - b.t)[0]
    failovers.push({
      cause: f.kind,
      atMs: rel(f.t),
      from: before.leader,
      fromTerm: before.term,
      to: next?.leader,
      toTerm: next?.term,
      ms: next === undefined ? null : round(next.t - f.t),
    })
  }

  // ---- the lock and its tokens ----------------------------------------------------------------
  // Entries in order across nodes are the global checks' (checks.ts); per coordinator, grants.
  const lastGranted = new Map<string, number>()
  let entries = 0
  for (const { node, p, e } of run.events) {
    if (p !== 'lock') continue
    const token = e.token as number
    if (e.type === 'acquired') {
      entries++
      if (!electedTerms.has(termOfToken(token))) {
        violations.push(
          `${node} entered with ${formatToken(token)}, of a term no leader was elected in`,
        )
      }
    } else if (e.type === 'granted') {
      const last = lastGranted.get(node)
      if (last !== undefined && token <= last) {
        violations.push(
          `fencing token went backwards at coordinator ${node}: granted ${formatToken(token)} after ${formatToken(last)}`,
        )
      }
      lastGranted.set(node, Math.max(last ?? 0, token))
    }
  }
  const lockRecoveryMs: number[] = []
  for (const f of run.faults) {
    if (f.t === undefined || f.token === undefined) continue
    const victim = f.targets[0]
    const next = run.events
      .filter(
        (x) =>
          x.p === 'lock' &&
          x.e.type === 'acquired' &&
          x.node !== victim &&
          x.t >= f.t! &&
          (x.e.token as number) > f.token!,
      )
      .sort((a, b) => a.t - b.t)[0]
    if (next !== undefined) lockRecoveryMs.push(round(next.t - f.t))
  }

  // ---- the counter ----------------------------------------------------------------------------
  if (run.store.counter !== run.store.acknowledged) {
    violations.push(
      `counter ${run.store.counter} differs from the ${run.store.acknowledged} acknowledged increments`,
    )
  }
  violations.push(...run.anomalies)
  violations.push(...historyViolations(run.history, run.store.counter))

  // ---- durable state across restarts ----------------------------------------------------------
  const restarts: Summary['restarts'] = []
  const highest = new Map<string, number>()
  const timeline = [
    ...run.events.map((x) => ({
      t: x.t,
      node: x.node,
      event: x as NodeEvent | undefined,
      boot: undefined,
    })),
    ...run.boots.map((b) => ({
      t: b.t,
      node: b.node,
      event: undefined,
      boot: b as BootRecord | undefined,
    })),
  ].sort((a, b) => a.t - b.t)
  const booted = new Set<string>()
  for (const step of timeline) {
    if (step.boot !== undefined) {
      const before = highest.get(step.node) ?? 0
      if (booted.has(step.node)) {
        restarts.push({
          node: step.node,
          atMs: rel(step.t),
          storedTerm: step.boot.stored.term,
          termBefore: before,
        })
        if (step.boot.stored.term < before) {
          violations.push(
            `durable state lost at ${step.node}: restarted with term ${step.boot.stored.term} after it reported term ${before}`,
          )
        }
      }
      booted.add(step.node)
      continue
    }
    const e = step.event!
    if (e.p === 'election' && typeof e.e.term === 'number') {
      highest.set(step.node, Math.max(highest.get(step.node) ?? 0, e.e.term))
    }
  }

  const leaders = [...announced]
    .sort(([a], [b]) => a - b)
    .map(([term, leader]) => {
      const at = leaderships.find((l) => l.term === term)?.t
      return { term, leader, atMs: at === undefined ? -1 : rel(at) }
    })
  const ok = violations.length === 0 && run.errors.length === 0
  return {
    ok,
    mode: run.mode,
    nodes: n,
    seconds: run.seconds,
    workloadStartMs: rel(run.startedAt),
    counter: run.store.counter,
    acknowledged: run.store.acknowledged,
    fencingRejections: run.store.fencingRejections,
    terms: electedTerms.size,
    maxTerm: Math.max(0, ...electedTerms),
    leaders,
    failoverMs: failovers.flatMap((f) => (f.ms === null ? [] : [f.ms])),
    failovers,
    lockRecoveryMs,
    entries,
    operations: countHistory(run.history),
    chaos: run.faults.map((f) => ({
      kind: f.kind,
      ...(f.t === undefined ? {} : { atMs: rel(f.t) }),
      ...(f.t !== undefined && f.until !== undefined ? { durationMs: round(f.until - f.t) } : {}),
      targets: f.targets,
      ...(f.deltaMs === undefined ? {} : { deltaMs: f.deltaMs }),
      ...(f.skipped === undefined ? {} : { skipped: f.skipped }),
    })),
    restarts,
    messages: run.messages,
    nftDrops: run.nftDrops,
    clockSpreadMs: run.clockSpreadMs,
    violations,
    errors: run.errors,
    ...(run.interrupted === undefined
      ? {}
      : { partial: { signal: run.interrupted, atMs: rel(run.endedAt) } }),
  }
}

/** The summary in words, for the terminal. */
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
    `  messages           ${m.sent} sent, ${m.delivered} delivered, ${m.retransmissions} retransmissions, ${m.dropped} datagrams refused`,
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
