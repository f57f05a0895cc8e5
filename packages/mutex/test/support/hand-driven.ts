import type { Ctx, JsonValue, NodeId, Protocol } from '@sd/transport'

/**
 * Drives one node of a protocol by hand, outside the simulator, as a hostile peer or untyped code
 * would: messages and requests go in unchecked (`unknown`). Its `ctx` records what the node sends
 * and emits, keeps its storage in a map; its clocks read 0 and its timers never fire.
 */
export function handDriven<Ev>(
  protocol: Protocol<unknown, unknown, Ev>,
  self: NodeId,
  peers: readonly NodeId[],
) {
  const sent: Array<[NodeId, unknown]> = []
  const events: Ev[] = []
  const stored = new Map<string, JsonValue>()
  const ctx: Ctx<unknown, Ev> = {
    self,
    peers,
    now: () => 0,
    monotonic: () => 0,
    send: (to, m) => void sent.push([to, m]),
    broadcast: (m) => {
      for (const p of peers) sent.push([p, m])
    },
    setTimer: () => {},
    cancelTimer: () => {},
    random: () => 0.5,
    emit: (e) => void events.push(e),
    storage: {
      get: (k) => stored.get(k),
      set: (k, v) => void stored.set(k, v),
      delete: (k) => void stored.delete(k),
      keys: () => [...stored.keys()].sort(),
    },
  }
  protocol.start?.(ctx)
  return { protocol, ctx, sent, events }
}
