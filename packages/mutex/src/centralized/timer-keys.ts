import { isExclusive } from './kinds.js'
import type { Holder } from './resource.js'

/** An exclusive holder's lease timer (the one holder of its resource). */
export const EXPIRE = 'expire:'
/** A shared or permit holder's lease timer: one per resource and node. */
export const EXPIRE_HOLDER = 'expire-holder:'
/** The end of a lock-delay, per resource and token. */
export const LOCK_DELAY = 'lock-delay:'
/** STOLEN sent again to the victims of a steal that have not acknowledged, per resource. */
export const RESEND_STOLEN = 'resend-stolen:'

/** A holder's lease timer at the coordinator; it goes on counting for a victim of a steal. */
export const expireKey = (name: string, h: Holder) =>
  isExclusive(h) ? EXPIRE + name : EXPIRE_HOLDER + JSON.stringify([name, h.node])
export const delayKey = (name: string, token: number) => LOCK_DELAY + JSON.stringify([name, token])

/** The `[name, x]` a JSON timer key names, or undefined when it does not fit. */
export function keyPair(json: string): [string, unknown] | undefined {
  try {
    const v: unknown = JSON.parse(json)
    return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' ? [v[0], v[1]] : undefined
  } catch {
    return undefined
  }
}
