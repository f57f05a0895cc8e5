import { isNonNegInt, type JsonValue, oneOf, optional, shape } from '@sd/transport'
import type { PermitCount } from '../contract.js'

/**
 * How an entry holds its resource, in the contract's own fields so it spreads into messages and
 * events: neither field for an exclusive entry (so exclusive messages and events are unchanged),
 * `mode: 'shared'` for a reader, `permits` for a semaphore's entry.
 */
export interface Hold {
  mode?: 'shared'
  permits?: PermitCount
}

/** What an acquire asks for: how it holds, and whether it waits (`ifAvailable`) or takes (`steal`). */
export interface Want extends Hold {
  ifAvailable?: true
  steal?: true
}

export const isExclusive = (h: Hold): boolean => h.permits === undefined && h.mode !== 'shared'

/** Only the fields that are set (permits win over mode, as in the contract's `entryKind`). */
export function holdOf(h: Hold): Hold {
  if (h.permits !== undefined) return { permits: { take: h.permits.take, of: h.permits.of } }
  return h.mode === 'shared' ? { mode: 'shared' } : {}
}

export function wantOf(w: Want): Want {
  return {
    ...holdOf(w),
    ...(w.ifAvailable === true ? { ifAvailable: true } : {}),
    ...(w.steal === true ? { steal: true } : {}),
  }
}

/** A permit count from anyone (a peer's message, a caller's request): 1 <= take <= of, integers. */
export const isPermits = (v: unknown): v is PermitCount =>
  shape({ take: isNonNegInt, of: isNonNegInt })(v) && v.take >= 1 && v.take <= v.of

/** The guards of a message's hold fields (peers' messages are validated). */
export const HOLD_FIELDS = { mode: optional(oneOf('shared')), permits: optional(isPermits) }
export const WANT_FIELDS = {
  ...HOLD_FIELDS,
  ifAvailable: optional(oneOf(true)),
  steal: optional(oneOf(true)),
}

/** Whether `next` may hold beside every one of `held` (the rule the all-nodes checker judges). */
export function compatible(next: Hold, held: readonly Hold[]): boolean {
  if (held.length === 0) return true
  if (next.permits !== undefined) {
    const { take, of } = next.permits
    let out = 0
    for (const h of held) {
      if (h.permits === undefined || h.permits.of !== of) return false
      out += h.permits.take
    }
    return out + take <= of
  }
  if (next.mode === 'shared')
    return held.every((h) => h.permits === undefined && h.mode === 'shared')
  return false
}

/**
 * The one place a semaphore's limit is checked: the limit `of` that the entries of a resource
 * (holders, waiting requests) already use when `want` asks for another one, else undefined.
 */
export function limitMismatch(want: Hold, entries: Iterable<Hold>): number | undefined {
  if (want.permits === undefined) return undefined
  for (const e of entries) {
    if (e.permits !== undefined && e.permits.of !== want.permits.of) return e.permits.of
  }
  return undefined
}

/**
 * A caller's acquire options, checked (the request comes from untyped code): the want, or why it
 * is refused. `mode: 'exclusive'` is the default spelled out.
 */
export function parseWant(r: {
  mode?: unknown
  permits?: unknown
  ifAvailable?: unknown
  steal?: unknown
}): Want | string {
  if (r.mode !== undefined && r.mode !== 'shared' && r.mode !== 'exclusive') return 'unknown mode'
  if (r.permits !== undefined && !isPermits(r.permits)) return 'permits need 1 <= take <= of'
  if (r.permits !== undefined && r.mode === 'shared') return 'shared and permits together'
  for (const flag of ['ifAvailable', 'steal'] as const) {
    if (r[flag] !== undefined && typeof r[flag] !== 'boolean') return `${flag} must be a boolean`
  }
  // Web Locks refuses both too: one waits for nothing, the other takes at once.
  if (r.ifAvailable === true && r.steal === true) return 'ifAvailable and steal together'
  return wantOf({
    mode: r.mode === 'shared' ? 'shared' : undefined,
    permits: r.permits as PermitCount | undefined,
    ifAvailable: r.ifAvailable === true ? true : undefined,
    steal: r.steal === true ? true : undefined,
  })
}

/** A hold or a want as snapshot data (only its set fields; `{}` for a plain exclusive one). */
export function wantJson(w: Want): { [key: string]: JsonValue } {
  const { permits, ...flags } = wantOf(w)
  return permits === undefined
    ? flags
    : { ...flags, permits: { take: permits.take, of: permits.of } }
}
