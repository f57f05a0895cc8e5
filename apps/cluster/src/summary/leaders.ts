/**
 * Who led when: the leaderships a majority followed, the leader each term announced, and the
 * failovers (a fault that took the leader away, until a majority followed a new one).
 */
import type { Failover, FaultRecord, NodeEvent, RunRecord, Summary } from '../summary.js'

type Leadership = { term: number; leader: string; t: number }

const majorityOf = (n: number) => Math.floor(n / 2) + 1

/** Per term, the elected leader and when a majority of the members first followed it. */
export function leadershipsOf(events: readonly NodeEvent[], n: number): Leadership[] {
  const followers = new Map<string, Set<string>>()
  const found: Leadership[] = []
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
export function leaderAt(leaderships: readonly Leadership[], t: number) {
  let best: Leadership | undefined
  for (const l of leaderships) if (l.t <= t && (best === undefined || l.term > best.term)) best = l
  return best
}

/** Terms in which a leader was elected. */
export function electedTermsOf(events: readonly NodeEvent[]): Set<number> {
  const electedTerms = new Set<number>()
  for (const x of events) {
    if (x.p === 'election' && x.e.type === 'leader') electedTerms.add(x.e.term as number)
  }
  return electedTerms
}

/**
 * The leader of each term, as it announced itself, and when a majority followed it (-1: never),
 * on the run's clock (`rel`).
 */
export function leadersOf(
  events: readonly NodeEvent[],
  leaderships: readonly Leadership[],
  rel: (t: number) => number,
): Summary['leaders'] {
  const announced = new Map<number, string>()
  for (const x of [...events].sort((a, b) => a.t - b.t)) {
    if (x.p === 'election' && x.e.type === 'leader' && x.e.leader === x.node) {
      if (!announced.has(x.e.term as number)) announced.set(x.e.term as number, x.node)
    }
  }
  return [...announced]
    .sort(([a], [b]) => a - b)
    .map(([term, leader]) => {
      const at = leaderships.find((l) => l.term === term)?.t
      return { term, leader, atMs: at === undefined ? -1 : rel(at) }
    })
}

/** Does fault `f` take the leader `leader` away from the majority? */
function hitsLeader(f: FaultRecord, leader: string): boolean {
  // A clock step must not take the leader away: a failover after one is a finding of its own.
  if (f.kind === 'loss' || f.kind === 'clock-step') return false
  return f.targets.includes(leader)
}

/** Each fault that took the leader away, and how long until a majority followed a new one. */
export function failoversOf(
  run: RunRecord,
  leaderships: readonly Leadership[],
  rel: (t: number) => number,
): Failover[] {
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
      ms: next === undefined ? null : Math.round(next.t - f.t),
    })
  }
  return failovers
}
