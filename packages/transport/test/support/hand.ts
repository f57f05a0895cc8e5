import type { MessageHandler, NodeId, TimerScheduler, Transport } from '../../src/index.js'

/** A transport whose inbound side the test drives by hand, and whose sends it records. */
export function handTransport(self: NodeId) {
  const handlers: MessageHandler<unknown>[] = []
  const sent: Array<{ to: NodeId; msg: unknown }> = []
  const transport: Transport<unknown> = {
    self,
    closed: false,
    send: (to, msg) => void sent.push({ to, msg }),
    onMessage(h) {
      handlers.push(h)
      return () => handlers.splice(handlers.indexOf(h), 1)
    },
    close: async () => {},
  }
  return {
    transport,
    sent,
    deliver: (from: NodeId, msg: unknown) => {
      for (const h of [...handlers]) h(from, msg)
    },
    handlers,
  }
}

/** Timers the test fires by hand. */
export function handTimers() {
  const live = new Map<number, { ms: number; fire: () => void }>()
  let next = 0
  const timers: TimerScheduler = {
    schedule(ms, fire) {
      live.set(++next, { ms, fire })
      return next
    },
    cancel: (h) => void live.delete(h as number),
  }
  return {
    timers,
    live,
    fireAll: () => {
      for (const [h, t] of [...live.entries()]) {
        live.delete(h)
        t.fire()
      }
    },
  }
}
