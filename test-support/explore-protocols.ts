/**
 * Small protocols for the explorer's tests: each correct one beside the bug the texts warn of.
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
    }
  }
}
