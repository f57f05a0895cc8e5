import type { FaultEvent, NodeId, TimedEvent } from '@sd/transport'
import { entryKind } from './contract.js'
import { fieldOf } from './fields.js'

/**
 * One emitted event as a trace records it: who, when, what (`emitsOf(trace, 'lock')` gives these);
 * `TimedEvent<MutexEvent>` when the protocol is known. The checker takes events of any protocol.
 */
export type { TimedEvent }

/** A crash of `node` at `t` (the first form of the faults `checkMutualExclusion` takes). */
export interface CrashAt {
  node: NodeId
  t: number
}

/** What a run looked like, judged from its `acquired` / `released` (and lease) events. */
export interface MutexVerdict {
  /** Node ids in order of entry, per resource. */
  order: Record<string, NodeId[]>
  entries: number
  /** Every broken rule, in words; empty when mutual exclusion held. */
  violations: string[]
}

interface Holding {
  node: NodeId
  resource: string
  token: number
  since: number
  /** When its lease runs out, in trace time; Infinity without a lease. */
  expiresAt: number
  leased: boolean
  kind: ReturnType<typeof entryKind>
}

/** Why `next` may not hold beside `held` (undefined: they may hold together; '' for the plain case). */
function conflict(next: Holding['kind'], held: readonly Holding[]): string | undefined {
  if (held.length === 0) return undefined
  if (next.kind === 'exclusive') {
    return held.every((h) => h.kind.kind === 'exclusive')
      ? ''
      : 'an exclusive entry beside another holder'
  }
  if (next.kind === 'shared') {
    return held.some((h) => h.kind.kind !== 'shared')
      ? 'a shared entry beside a non-shared holder'
      : undefined
  }
  if (held.some((h) => h.kind.kind !== 'permits' || h.kind.of !== next.of)) {
    return `a permit entry (of ${next.of}) beside a holder of another kind or limit`
  }
  const out = held.reduce((sum, h) => sum + (h.kind.kind === 'permits' ? h.kind.take : 0), 0)
  return out + next.take > next.of ? `${out + next.take} permits out of ${next.of}` : undefined
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const keyOf = (node: NodeId, resource: string, token: number) =>
  JSON.stringify([node, resource, token])

/**
 * Checks mutual exclusion from a run's events across all nodes (times in one time base: virtual
 * time, or machine time for real processes).
 *
 * A holding runs from `acquired` to the earliest of its `released`, its `lease-lost`, the end of
 * its lease (with leases: `leaseMs` after `acquired`, moved by each `lease-renewed` to
 * `validForMs` after it), the holder's crash, or (with a lease) the holder's pause: a paused
 * process cannot know its lease ran out, so the lock may not count on it. Broken rules:
 * - an `acquired` while another holding of that resource is valid (two valid leases overlap),
 *   unless both are shared (`mode: 'shared'`) or both take permits (`permits: { take, of }`) of
 *   one limit and the permits out stay within it;
 * - an exclusive entry's token not strictly above every token entered before on that resource,
 *   a shared or permit entry's token not strictly above every exclusive one entered before, or a
 *   token entered twice;
 * - a `released` of what the node never acquired.
 *
 * `faults` is either the crashes (`{ node, t }`) or the run's fault entries (`faultsOf(trace)`:
 * crash, restart, pause, resume, partition, heal, clock-step), in time order. Faults at time t
 * come before events at t.
 */
export function checkMutualExclusion(
  events: readonly TimedEvent[],
  faults: ReadonlyArray<CrashAt> | readonly FaultEvent[] = [],
): MutexVerdict {
  const violations: string[] = []
  const order: Record<string, NodeId[]> = {}
  // Valid holdings per resource: more than one is the violation being looked for.
  const valid = new Map<string, Holding[]>()
  // Every holding not yet released (valid or not), so a late `released` is not taken for a stray.
  const open = new Map<string, Holding>()
  // Per resource: the highest token entered, the highest exclusive one, and every one entered.
  const highest = new Map<string, { any: number; exclusive: number; seen: Set<number> }>()
  let entries = 0

  const end = (keep: (h: Holding) => boolean) => {
    for (const [resource, list] of valid) valid.set(resource, list.filter(keep))
  }
  const onFault = (f: CrashAt | FaultEvent) => {
    const type = 'type' in f ? f.type : undefined // a CrashAt has none
    const node = 'node' in f ? f.node : undefined // a partition or a heal has none
    if (type === undefined || type === 'crash') {
      end((h) => h.node !== node)
      for (const [key, h] of open) if (h.node === node) open.delete(key)
    } else if (type === 'pause') end((h) => !(h.node === node && h.leased))
  }

  const timeline = [
    ...faults.map((f, i) => ({ at: f.t, rank: i - faults.length, fault: f })),
    ...events.map((e, i) => ({ at: e.t, rank: i, item: e })),
  ].sort((a, b) => a.at - b.at || a.rank - b.rank)

  for (const step of timeline) {
    if ('fault' in step) {
      onFault(step.fault)
      continue
    }
    const { node, t } = step.item!
    // Events of any protocol: only those with a string resource and a numeric token count.
    const { event } = step.item!
    const resource = fieldOf(event, 'resource')
    const token = fieldOf(event, 'token')
    if (typeof resource !== 'string' || !num(token)) continue
    const type = fieldOf(event, 'type')
    const current = (valid.get(resource) ?? []).filter((h) => h.expiresAt > t)
    valid.set(resource, current)
    if (type === 'acquired') {
      entries++
      const kind = entryKind({ mode: fieldOf(event, 'mode'), permits: fieldOf(event, 'permits') })
      const why = conflict(kind, current)
      if (why !== undefined) {
        for (const other of current) {
          violations.push(
            `t=${t}: ${String(node)} acquired ${resource} (token ${token}) while ${String(other.node)} held it since t=${other.since} (token ${other.token}${other.leased ? `, lease valid until t=${other.expiresAt}` : ''})${why === '' ? '' : `: ${why}`}`,
          )
        }
      }
      const marks = highest.get(resource) ?? {
        any: -Infinity,
        exclusive: -Infinity,
        seen: new Set(),
      }
      const floor = kind.kind === 'exclusive' ? marks.any : marks.exclusive
      if (!(token > floor)) {
        violations.push(
          `t=${t}: ${String(node)} acquired ${resource} with token ${token}, not above the previous ${kind.kind === 'exclusive' ? '' : 'exclusive '}${floor}`,
        )
      } else if (marks.seen.has(token)) {
        violations.push(
          `t=${t}: ${String(node)} acquired ${resource} with token ${token}, entered before`,
        )
      }
      marks.any = Math.max(marks.any, token)
      if (kind.kind === 'exclusive') marks.exclusive = Math.max(marks.exclusive, token)
      marks.seen.add(token)
      highest.set(resource, marks)
      const leaseMs = fieldOf(event, 'leaseMs')
      const leased = num(leaseMs)
      const holding = {
        node,
        resource,
        token,
        since: t,
        expiresAt: leased ? t + leaseMs : Number.POSITIVE_INFINITY,
        leased,
        kind,
      }
      current.push(holding)
      open.set(keyOf(node, resource, token), holding)
      const entered = order[resource] ?? []
      entered.push(node)
      order[resource] = entered
    } else if (type === 'lease-renewed') {
      const validForMs = fieldOf(event, 'validForMs')
      const mine = current.find((h) => h.node === node && h.token === token)
      // A renewal of a lease already over (expired, or its holder paused) does not revive it.
      if (mine !== undefined && num(validForMs))
        mine.expiresAt = Math.max(mine.expiresAt, t + validForMs)
    } else if (type === 'lease-lost') {
      valid.set(
        resource,
        current.filter((h) => !(h.node === node && h.token === token)),
      )
    } else if (type === 'released') {
      const key = keyOf(node, resource, token)
      if (!open.has(key)) {
        violations.push(
          `t=${t}: ${String(node)} released ${resource} (token ${token}) it did not hold`,
        )
        continue
      }
      open.delete(key)
      valid.set(
        resource,
        current.filter((h) => !(h.node === node && h.token === token)),
      )
    }
  }
  return { order, entries, violations }
}
