import type { NodeId } from '@sd/transport'
import { DEFAULT_RESOURCE } from '../contract.js'

/** A local acquire/release, checked (requests come from application code, typed or not). */
export function parseLocalRequest(
  req: unknown,
): { type: 'acquire' | 'release'; resource: string } | string {
  if (typeof req !== 'object' || req === null) return 'request is not an object'
  const r: { type?: unknown; resource?: unknown } = req
  if (r.type !== 'acquire' && r.type !== 'release') return `unknown request ${String(r.type)}`
  if (r.resource !== undefined && typeof r.resource !== 'string') return 'resource is not a string'
  return { type: r.type, resource: r.resource ?? DEFAULT_RESOURCE }
}

/** What both timestamp algorithms keep per resource that a local request looks at. */
export interface LocalState {
  state: 'RELEASED' | 'WAITING' | 'WANTED' | 'HELD'
  /** Acquires asked while one is under way: served after the current turn. */
  queued: number
}

/** The `ignored` event both timestamp algorithms emit for what they drop. */
export type IgnoredEvent = { type: 'ignored'; from: NodeId; reason: string }

/**
 * A local request, as Ricart-Agrawala and Lamport's algorithm both take it: an acquire starts a
 * request when the node neither wants nor holds the resource (or waits its turn); a release ends
 * the node's turn; anything else is reported, never thrown. `ctx` is handed on to `request` and
 * `release`, never kept.
 */
export function handleLocalRequest<
  S extends LocalState,
  C extends { emit(event: IgnoredEvent): void },
>(
  req: unknown,
  self: NodeId,
  ctx: C,
  stateOf: (resource: string) => S,
  request: (resource: string, state: S, ctx: C) => void,
  release: (resource: string, state: S, ctx: C) => void,
): void {
  const parsed = parseLocalRequest(req)
  if (typeof parsed === 'string') {
    ctx.emit({ type: 'ignored', from: self, reason: parsed })
    return
  }
  const r = stateOf(parsed.resource)
  if (parsed.type === 'acquire') {
    if (r.state === 'RELEASED') request(parsed.resource, r, ctx)
    else r.queued++
  } else if (r.state === 'HELD') {
    release(parsed.resource, r, ctx)
  } else {
    ctx.emit({ type: 'ignored', from: self, reason: `release of ${parsed.resource} not held` })
  }
}
