import type { LockMode } from '../contract.js'
import { parseLocalRequest } from '../lamport/local-request.js'

/** Two requests conflict unless both are shared: readers never hold back each other. */
export function conflicts(a: LockMode, b: LockMode): boolean {
  return a === 'exclusive' || b === 'exclusive'
}

/**
 * A local acquire (with the mode it asks for) or release, checked, or why it is refused. An
 * absent mode is exclusive; `permits` are not honoured, so such an acquire is granted the
 * stronger exclusive entry (the contract's rule).
 */
export function parseModedRequest(
  req: unknown,
):
  | { type: 'acquire'; resource: string; mode: LockMode }
  | { type: 'release'; resource: string }
  | string {
  const parsed = parseLocalRequest(req)
  if (typeof parsed === 'string') return parsed
  if (parsed.type === 'release') return { type: 'release', resource: parsed.resource }
  const { mode, permits } = req as { mode?: unknown; permits?: unknown }
  if (mode !== undefined && mode !== 'exclusive' && mode !== 'shared') {
    return `mode is not 'exclusive' or 'shared'`
  }
  const granted = mode === 'shared' && permits === undefined ? 'shared' : 'exclusive'
  return { type: 'acquire', resource: parsed.resource, mode: granted }
}

/** What the `acquired` / `requested` events and the REQUEST carry: `mode` only when shared. */
export const modeField = (mode: LockMode): { mode?: 'shared' } =>
  mode === 'shared' ? { mode } : {}
