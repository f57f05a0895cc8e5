/**
 * Small protocols for the explorer's tests: each correct one beside the bug the texts warn of.
 * Each has `snapshot()`, so the explorer runs them statefully unless told `stateful: false`, and
 * `restore()`, so it branches from saved states instead of replaying.
 */
import type { Ctx, NodeId, Protocol } from '@sd/transport'

/** 1 pings each peer `rounds` times; each answers pong. Emits what each node received. */
export function pingPong(rounds: number) {
  return (self: NodeId): Protocol<{ type: 'ping' | 'pong'; n: number }, never, string> => ({
    start(ctx) {
      if (self !== 1) return
      for (let n = 1; n <= rounds; n++) ctx.broadcast({ type: 'ping', n })
    },
    onMessage(from, msg, ctx) {
      ctx.emit(`${msg.type}${msg.n} from ${String(from)}`)
      if (msg.type === 'ping') ctx.send(from, { type: 'pong', n: msg.n })
    },
    // Stateless: what a node does next depends only on what arrives.
    snapshot: () => null,
    restore: () => undefined,
  })
}

type RaMsg = { type: 'request'; ts: number } | { type: 'ok' }

/**
 * Ricart-Agrawala where every node asks at start and never leaves: at most one may enter. With
 * `tieBreak: false` a request with the same timestamp as ours is answered OK instead of being
 * ordered by pid, so two nodes that ask at once both enter.
 */
export function ricartAgrawala(tieBreak: boolean) {
  return (self: NodeId): Protocol<RaMsg, never, string> => {
    let clock = 0
    let mine = 0
    let oks = 0
    const deferred: NodeId[] = []
    return {
      start(ctx) {
        mine = ++clock
        ctx.broadcast({ type: 'request', ts: mine })
        if (ctx.peers.length === 0) ctx.emit('enter')
      },
      onMessage(from, msg, ctx) {
        if (msg.type === 'ok') {
          if (++oks === ctx.peers.length) ctx.emit('enter')
          return
        }
        clock = Math.max(clock, msg.ts) + 1
        const mineFirst = tieBreak
          ? mine < msg.ts || (mine === msg.ts && Number(self) < Number(from))
          : mine < msg.ts
        if (mineFirst) deferred.push(from)
        else ctx.send(from, { type: 'ok' })
      },
      // Nobody leaves, so the deferred are never answered: their order is no state.
      snapshot: () => ({ clock, mine, oks, deferred: [...deferred].sort() }),
      restore(snapshot) {
        const s = snapshot as { clock: number; mine: number; oks: number; deferred: NodeId[] }
        ;({ clock, mine, oks } = s)
        deferred.splice(0, deferred.length, ...s.deferred)
      },
    }
  }
}

type CrMsg = { type: 'election'; id: number } | { type: 'elected'; id: number }

/**
 * Chang-Roberts on the ring 1 -> 2 -> ... -> n -> 1, every node an initiator. Without the
 * participant flag a node replaces every smaller id by its own, so its own id can go round twice
 * and it announces itself twice.
 */
export function changRoberts(n: number, participantFlag: boolean) {
  return (self: NodeId): Protocol<CrMsg, never, string> => {
    const me = Number(self)
    const next = (me % n) + 1
    let participant = false
    const forward = (ctx: Ctx<CrMsg, string>, id: number) => {
      participant = true
      ctx.send(next, { type: 'election', id })
    }
    return {
      start(ctx) {
        forward(ctx, me)
      },
      onMessage(_from, msg, ctx) {
        if (msg.type === 'elected') {
          ctx.emit(`leader ${msg.id}`)
          if (msg.id !== me) ctx.send(next, msg)
          return
        }
        if (msg.id > me) forward(ctx, msg.id)
        else if (msg.id === me) ctx.send(next, { type: 'elected', id: me })
        else if (!participantFlag || !participant) forward(ctx, me)
      },
      snapshot: () => ({ participant }),
      restore(snapshot) {
        participant = (snapshot as { participant: boolean }).participant
      },
    }
  }
}

type CbMsg = { type: 'bcast'; label: string; deps: Record<string, number> }

/**
 * Causal broadcast: 1 broadcasts a; 2, on delivering a, broadcasts b (so a -> b). With vector
 * clocks a node buffers b until it has a; `onArrival` delivers whatever comes, in any order.
 */
export function causalBroadcast(onArrival: boolean) {
  return (self: NodeId): Protocol<CbMsg, never, string> => {
    const delivered = new Map<string, number>()
    const buffer: Array<{ from: NodeId; msg: CbMsg }> = []
    const deliverable = (from: NodeId, msg: CbMsg) =>
      onArrival ||
      Object.entries(msg.deps).every(
        ([k, v]) => (delivered.get(k) ?? 0) >= v - (k === String(from) ? 1 : 0),
      )
    const deliver = (from: NodeId, msg: CbMsg, ctx: Ctx<CbMsg, string>) => {
      delivered.set(String(from), (delivered.get(String(from)) ?? 0) + 1)
      ctx.emit(`deliver ${msg.label}`)
      if (self === 2 && msg.label === 'a') send('b', ctx)
    }
    const send = (label: string, ctx: Ctx<CbMsg, string>) => {
      const deps = Object.fromEntries(delivered)
      deps[String(self)] = (delivered.get(String(self)) ?? 0) + 1
      delivered.set(String(self), deps[String(self)]!)
      ctx.emit(`deliver ${label}`)
      ctx.broadcast({ type: 'bcast', label, deps })
    }
    return {
      start(ctx) {
        if (self === 1) send('a', ctx)
      },
      onMessage(from, msg, ctx) {
        buffer.push({ from, msg })
        for (let progress = true; progress; ) {
          progress = false
          for (let i = 0; i < buffer.length; i++) {
            const item = buffer[i]!
            if (!deliverable(item.from, item.msg)) continue
            buffer.splice(i, 1)
            deliver(item.from, item.msg, ctx)
            progress = true
            break
          }
        }
      },
      // The buffer's order is state: the first deliverable one in it is delivered first.
      snapshot: () => ({
        delivered: [...delivered].sort(([a], [b]) => (a < b ? -1 : 1)),
        buffer: buffer.map(({ from, msg }) => [from, msg]),
      }),
      restore(snapshot) {
        const s = snapshot as { delivered: Array<[string, number]>; buffer: Array<[NodeId, CbMsg]> }
        delivered.clear()
        for (const [k, v] of s.delivered) delivered.set(k, v)
        buffer.splice(0, buffer.length, ...s.buffer.map(([from, msg]) => ({ from, msg })))
      },
    }
  }
}

type FloodMsg = { type: 'flood'; value: number }

/**
 * Flooding: 1 sends a value to every peer; each node, the first time it hears it, emits `got`
 * and forwards it to every peer but the sender. Without `dedupe` it forwards every copy, so the
 * value circulates and nodes emit `got` again.
 */
export function flood(dedupe: boolean) {
  return (self: NodeId): Protocol<FloodMsg, never, string> => {
    let seen = self === 1
    return {
      start(ctx) {
        if (self === 1) ctx.broadcast({ type: 'flood', value: 7 })
      },
      onMessage(from, msg, ctx) {
        if (seen && dedupe) return
        seen = true
        ctx.emit(`got ${msg.value}`)
        for (const peer of ctx.peers) if (peer !== from) ctx.send(peer, msg)
      },
      snapshot: () => ({ seen }),
      restore(snapshot) {
        seen = (snapshot as { seen: boolean }).seen
      },
    }
  }
}

type VcMsg = { label: string; vc: Record<string, number> }

/**
 * Causal broadcast with vector clocks, any number of messages: each request `{ payload }`
 * broadcasts one, delivered at once by its sender. A message waits until the receiver has
 * delivered everything its sender had (and the sender's earlier ones); with `onArrival` every
 * message is delivered as it comes. Emits `deliver <payload>`.
 */
export function vectorBroadcast(onArrival = false) {
  return (self: NodeId): Protocol<VcMsg, { payload: string }, string> => {
    const me = String(self)
    const delivered: Record<string, number> = {}
    let buffer: Array<{ from: string; msg: VcMsg }> = []
    const count = (k: string) => delivered[k] ?? 0
    const ready = ({ from, msg }: { from: string; msg: VcMsg }) =>
      onArrival ||
      Object.entries(msg.vc).every(([k, v]) => (k === from ? v === count(k) + 1 : v <= count(k)))
    return {
      onRequest(req, ctx) {
        delivered[me] = count(me) + 1
        ctx.emit(`deliver ${req.payload}`)
        ctx.broadcast({ label: req.payload, vc: { ...delivered } })
      },
      onMessage(from, msg, ctx) {
        // Kept sorted by sender and its count: the buffer is a set, and its snapshot is canonical.
        buffer = [...buffer, { from: String(from), msg }].sort((a, b) =>
          a.from < b.from ? -1 : a.from > b.from ? 1 : a.msg.vc[a.from]! - b.msg.vc[b.from]!,
        )
        for (let i = buffer.findIndex(ready); i >= 0; i = buffer.findIndex(ready)) {
          const [item] = buffer.splice(i, 1)
          delivered[item!.from] = count(item!.from) + 1
          ctx.emit(`deliver ${item!.msg.label}`)
        }
      },
      snapshot: () => ({ delivered: { ...delivered }, buffer: [...buffer] }),
      restore(snapshot) {
        const s = snapshot as { delivered: Record<string, number>; buffer: typeof buffer }
        Object.assign(delivered, s.delivered)
        buffer = s.buffer
      },
    }
  }
}
