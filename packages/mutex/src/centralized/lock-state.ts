import {
  arrayOf,
  type Guard,
  isNodeId,
  isNonNegInt,
  isString,
  type NodeId,
  oneOf,
  optional,
  shape,
} from '@sd/transport'
import type { LockStateEntry, LockStateEvent, LockStateResource } from '../contract.js'
import { type ReaderPolicy, servingOrder } from './grant-order.js'
import { HOLD_FIELDS, type Hold, holdOf } from './kinds.js'
import { holdersOf, type Resource } from './resource.js'

/**
 * The answer to a QUERY is bounded, so one message never outgrows what a transport carries: at
 * most this many resources (those with holders or waiting requests, in name order) ...
 */
export const MAX_STATE_RESOURCES = 100
/** ... and this many entries (holders and waiting requests) in all; past either, `truncated`. */
export const MAX_STATE_ENTRIES = 1000
/** A query's `id` is the caller's, echoed: a short string or a finite number. */
export const MAX_QUERY_ID_LENGTH = 200

export const isQueryId: Guard<string | number> = (v): v is string | number =>
  (typeof v === 'number' && Number.isFinite(v)) ||
  (typeof v === 'string' && v.length <= MAX_QUERY_ID_LENGTH)

/** A holder as the coordinator answers it (the fields of `Hold` absent for an exclusive one). */
export type StateHolder = { node: NodeId; token: number } & Hold
export type StateWaiting = { node: NodeId; steal?: true } & Hold
export interface StateResource {
  resource: string
  holders: StateHolder[]
  queue: StateWaiting[]
}

const isHolder = shape({ node: isNodeId, token: isNonNegInt, ...HOLD_FIELDS })
const isWaiting = shape({ node: isNodeId, ...HOLD_FIELDS, steal: optional(oneOf(true)) })
const isResource = shape({
  resource: isString,
  holders: arrayOf(isHolder, { max: MAX_STATE_ENTRIES }),
  queue: arrayOf(isWaiting, { max: MAX_STATE_ENTRIES }),
})
const isResourceList = arrayOf(isResource, { max: MAX_STATE_RESOURCES })

/** The answer's resources from a peer: well formed, and within both bounds. */
export const isStateResources: Guard<StateResource[]> = (v): v is StateResource[] => {
  if (!isResourceList(v)) return false
  let entries = 0
  for (const r of v) entries += r.holders.length + r.queue.length
  return entries <= MAX_STATE_ENTRIES
}

/**
 * The coordinator's view of its resources, bounded: holders in node order, waiting requests in
 * the order it considers them (grant-order.ts). A resource cut short ends the list (`truncated`).
 */
export function stateOf(
  resources: ReadonlyMap<string, Resource>,
  policy: ReaderPolicy,
): { resources: StateResource[]; truncated: boolean } {
  const out: StateResource[] = []
  let room = MAX_STATE_ENTRIES
  for (const name of [...resources.keys()].sort()) {
    const r = resources.get(name)!
    if (r.holders.size === 0 && r.queue.length === 0) continue // known, but nothing on it now
    const holders = holdersOf(r).map((h) => ({ node: h.node, token: h.token, ...holdOf(h) }))
    const queue = servingOrder(r.queue, policy).map((q) => ({
      node: q.node,
      ...holdOf(q),
      ...(q.steal === true ? { steal: true as const } : {}),
    }))
    if (out.length === MAX_STATE_RESOURCES || holders.length + queue.length > room) {
      return { resources: out, truncated: true }
    }
    room -= holders.length + queue.length
    out.push({ resource: name, holders, queue })
  }
  return { resources: out, truncated: false }
}

const entryOf = (h: Hold & { node: NodeId }): LockStateEntry =>
  h.permits !== undefined
    ? { node: h.node, mode: 'exclusive', permits: { take: h.permits.take, of: h.permits.of } }
    : { node: h.node, mode: h.mode === 'shared' ? 'shared' : 'exclusive' }

/** The contract's `lock-state` event of an answer: every mode spelled out. */
export function lockStateEvent(answer: {
  id: string | number
  term: number
  recovering: boolean
  truncated: boolean
  resources: readonly StateResource[]
}): LockStateEvent {
  const resources: LockStateResource[] = answer.resources.map((r) => ({
    resource: r.resource,
    holders: r.holders.map((h) => ({ ...entryOf(h), token: h.token })),
    queue: r.queue.map((q) => ({ ...entryOf(q), ...(q.steal === true ? { steal: true } : {}) })),
  }))
  return {
    type: 'lock-state',
    id: answer.id,
    term: answer.term,
    recovering: answer.recovering,
    truncated: answer.truncated,
    resources,
  }
}
