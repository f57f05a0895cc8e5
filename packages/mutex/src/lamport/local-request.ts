import { DEFAULT_RESOURCE } from '../contract.js'

/** A local acquire/release, checked (requests come from application code, typed or not). */
export function parseLocalRequest(
  req: unknown,
): { type: 'acquire' | 'release'; resource: string } | string {
  if (typeof req !== 'object' || req === null) return 'request is not an object'
  const r = req as { type?: unknown; resource?: unknown }
  if (r.type !== 'acquire' && r.type !== 'release') return `unknown request ${String(r.type)}`
  if (r.resource !== undefined && typeof r.resource !== 'string') return 'resource is not a string'
  return { type: r.type, resource: r.resource ?? DEFAULT_RESOURCE }
}
