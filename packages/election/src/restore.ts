/**
 * What the elections' `restore()` share: a snapshot's shape checked, and the heartbeat watch put
 * back in the state its snapshot gave.
 */
import { type Ctx, InvalidArgumentError, snapshotFields } from '@sd/transport'
import type { HeartbeatSettings, LeaderWatch } from './detector/heartbeat.js'

export { snapshotFields }

/**
 * Whether a protocol over these heartbeat settings can be restored: with the timeout detector the
 * watch is whether it leads (its timers are the runtime's); phi accrual keeps a history of
 * arrivals that `LeaderWatch` cannot be given back, so a protocol over it offers no `restore()`.
 */
export const restorableWatch = (heartbeat: HeartbeatSettings): boolean =>
  heartbeat.detector === undefined

/**
 * The effects of `lead` happened before the snapshot (the beat timer is the runtime's): this ctx
 * takes them and keeps none.
 */
const PAST = { cancelTimer() {}, setTimer() {} } as unknown as Ctx<never, never>

/**
 * A fresh watch put back in the state `watch.snapshot()` gave: leading, with `beat` (rebuilt by
 * the protocol from its own state, e.g. the term it leads), or not.
 */
export function restoreWatch<Msg, Ev>(
  watch: LeaderWatch,
  snapshot: unknown,
  who: string,
  beat: ((ctx: Ctx<Msg, Ev>) => void) | undefined,
): void {
  const s = snapshotFields(snapshot, who, ['leading'])
  if (Object.hasOwn(s, 'phi'))
    throw new InvalidArgumentError(`${who}: restore() of a phi accrual watch is not supported`)
  if (s.leading !== true) return
  if (beat === undefined)
    throw new InvalidArgumentError(`${who}: restore() of a leading watch needs what it beats`)
  // `lead` beats at once: that beat went out before the snapshot, so it is not made again.
  let past = true
  watch.lead(PAST as Ctx<Msg, Ev>, (ctx: Ctx<Msg, Ev>) => {
    if (!past) beat(ctx)
  })
  past = false
}
