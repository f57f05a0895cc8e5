// `transferLeadership(to)`: the handle's side of a hand-over (the protocol does the rest).
import type { NodeId, ProtocolHandle, TimerScheduler } from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import {
  ElectionAbortedError,
  ElectionClosedError,
  ElectionTimeoutError,
  NotLeaderError,
  TransferFailedError,
  TransferInProgressError,
  UnknownTargetError,
} from '../errors.js'
import { eventFields } from '../event-fields.js'
import type { ViewSource } from './observe.js'
import { checkWait, type LeaderView, type WaitOptions } from './wait.js'

export interface TransferContext extends ViewSource {
  self: NodeId
  members: readonly NodeId[]
  protocol: ProtocolHandle<ElectionRequest, unknown>
  timers: TimerScheduler
}

/**
 * Asks the protocol to hand over to `to` and settles when `to` leads (with its view), or rejects:
 * `ElectionClosedError`, `UnknownTargetError`, `NotLeaderError`, `TransferInProgressError` at once;
 * later `TransferFailedError` (the protocol's reason), `ElectionTimeoutError`, `ElectionAbortedError`.
 * `pending` is the handle's one transfer slot.
 */
export function startTransfer(
  c: TransferContext,
  pending: { to: NodeId | undefined },
  to: NodeId,
  options: WaitOptions,
): Promise<LeaderView> {
  if (c.closed()) return Promise.reject(new ElectionClosedError())
  const ms = checkWait(options, 'transferLeadership')
  if (!c.members.includes(to)) return Promise.reject(new UnknownTargetError(to))
  if (pending.to !== undefined) return Promise.reject(new TransferInProgressError(pending.to))
  const now = c.current()
  if (now === undefined || now.leader !== c.self) {
    return Promise.reject(new NotLeaderError(now?.leader))
  }
  if (to === c.self) return Promise.resolve(now)
  if (options.signal?.aborted) {
    return Promise.reject(new ElectionAbortedError(options.signal.reason, 'the transfer'))
  }
  pending.to = to
  return new Promise<LeaderView>((resolve, reject) => {
    let started = false
    let failure: string | undefined
    const cleanups: (() => void)[] = []
    const finish = (settle: () => void) => {
      for (const f of cleanups.splice(0)) f()
      pending.to = undefined
      settle()
    }
    cleanups.push(
      c.protocol.onEvent((event) => {
        const e = eventFields(event)
        if (e?.type === 'transfer-started' && e.to === to) started = true
        else if (e?.type === 'transfer-failed' && e.to === to) {
          failure = String(e.reason)
          if (started) finish(() => reject(new TransferFailedError(to, failure!)))
        }
      }),
      c.onChange((view) => {
        if (!started || view === undefined || view.leader === c.self) return
        if (view.leader === to) finish(() => resolve(view))
        else finish(() => reject(new TransferFailedError(to, 'other-leader')))
      }),
      c.onClose(() => finish(() => reject(new ElectionClosedError()))),
    )
    if (ms !== undefined) {
      const timer = c.timers.schedule(ms, () =>
        finish(() => reject(new ElectionTimeoutError(ms, `no hand-over to ${JSON.stringify(to)}`))),
      )
      cleanups.push(() => c.timers.cancel(timer))
    }
    const signal = options.signal
    if (signal !== undefined) {
      const onAbort = () =>
        finish(() => reject(new ElectionAbortedError(signal.reason, 'the transfer')))
      signal.addEventListener('abort', onAbort, { once: true })
      cleanups.push(() => signal.removeEventListener('abort', onAbort))
    }
    // The protocol answers the request within it (a step runs to its end, events included).
    c.protocol.request({ type: 'transfer', to })
    if (started || pending.to === undefined) return
    const error =
      failure === 'not-leader'
        ? new NotLeaderError(c.current()?.leader)
        : failure === 'in-progress'
          ? new TransferInProgressError(to)
          : failure === 'unknown-target'
            ? new UnknownTargetError(to)
            : new TransferFailedError(to, failure ?? 'unsupported')
    finish(() => reject(error))
  })
}
