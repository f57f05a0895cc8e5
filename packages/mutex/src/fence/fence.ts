/**
 * The resource's side of fencing tokens (Chubby's CheckSequencer, Kleppmann's fencing tokens): a
 * lock alone cannot stop a holder paused past its lease from writing late, so the resource itself
 * refuses a token older than one it has already accepted.
 *
 * The rule, per key, with W the newest token accepted for a write and R for a read:
 * - a write with token t is accepted when t >= max(W, R), and sets W = t;
 * - a read with token t is accepted when t >= W (with `strictReads`, t >= max(W, R)), and sets
 *   R = max(R, t).
 * Equal tokens pass: one holder reads and writes many times under one grant. A write older than an
 * accepted read is refused so that the newer holder's read-modify-write cannot be overtaken by
 * the older one's late write (it would be lost when the newer one writes). Tokens compare as
 * numbers, which is the mutex's order (a centralized token is term * TOKENS_PER_TERM + counter).
 */
import { isNonNegInt } from '@sd/transport'
import { DEFAULT_RESOURCE } from '../contract.js'
import { InvalidArgumentError, StaleTokenError } from '../errors.js'
import { type FenceOptions, resolveOptions } from './options.js'
import { asStableStorage, type FenceMarks, readMarks, writeMarks } from './stored.js'

export interface FenceCheck {
  kind: 'read' | 'write'
  /** The resource name within this fence; default `DEFAULT_RESOURCE`. */
  key?: string
}

export type FenceVerdict = { ok: true } | { ok: false; error: StaleTokenError }

export interface Fence {
  /** Accepts the token (moving the fence as the rule says) or throws `StaleTokenError`. */
  check(token: number, op: FenceCheck): void
  /** As `check`, with the refusal returned instead of thrown. */
  admit(token: number, op: FenceCheck): FenceVerdict
  /** The newest tokens accepted on `key`, for a write and for a read (0: none yet). */
  newest(key?: string): FenceMarks
}

export function createFence(options: FenceOptions = {}): Fence {
  const { name, storage: given, strictReads } = resolveOptions(options)
  const storage = asStableStorage(given)

  const admit = (token: number, op: FenceCheck): FenceVerdict => {
    if (!isNonNegInt(token)) {
      throw new InvalidArgumentError(`a token is an integer >= 0, got ${String(token)}`)
    }
    if (op.kind !== 'read' && op.kind !== 'write') {
      throw new InvalidArgumentError(`kind must be 'read' or 'write', got ${String(op.kind)}`)
    }
    const key = op.key ?? DEFAULT_RESOURCE
    if (typeof key !== 'string') {
      throw new InvalidArgumentError(`key must be a string, got ${String(key)}`)
    }
    const marks = readMarks(storage, name, key)
    const checksReads = op.kind === 'write' || strictReads
    if (token < marks.write) {
      return { ok: false, error: new StaleTokenError(key, op.kind, token, marks.write, 'write') }
    }
    if (checksReads && token < marks.read) {
      return { ok: false, error: new StaleTokenError(key, op.kind, token, marks.read, 'read') }
    }
    const next =
      op.kind === 'write'
        ? { ...marks, write: token }
        : { ...marks, read: Math.max(marks.read, token) }
    if (next.write !== marks.write || next.read !== marks.read) writeMarks(storage, name, key, next)
    return { ok: true }
  }

  return {
    admit,
    check(token, op) {
      const verdict = admit(token, op)
      if (!verdict.ok) throw verdict.error
    },
    newest: (key = DEFAULT_RESOURCE) => readMarks(storage, name, key),
  }
}
