/**
 * Small protocols for the explorer's liveness tests: runs that reach their goal, and runs that
 * deadlock or livelock. Each has `snapshot()` (liveness needs the stateful search) and `restore()`.
 */
import type { Ctx, NodeId, Protocol } from '@sd/transport'

type RingMsg = { type: 'token' }

/**
 * A token ring 1 -> 2 -> ... -> n -> 1; node 1 starts with the token, each asker emits `enter`
 * the first time it holds it. With `regenerateMs`, node 1 checks every `regenerateMs` whether the
 * token came by since the last check and, if not, makes a new one (a lost token comes back).
 */
export function tokenRing(n: number, askers: readonly NodeId[], regenerateMs?: number) {
  return (self: NodeId): Protocol<RingMsg, never, string> => {
    const me = Number(self)
    const next = (me % n) + 1
    let entered = false
    let seen = me === 1
    const hold = (ctx: Ctx<RingMsg, string>) => {
      if (!entered && askers.includes(self)) {
        entered = true
        ctx.emit('enter')
      }
      ctx.send(next, { type: 'token' })
    }
    return {
      start(ctx) {
        if (me !== 1) return
        if (regenerateMs !== undefined) ctx.setTimer('check', regenerateMs)
        hold(ctx)
      },
      onMessage(_from, _msg, ctx) {
        if (me === 1) seen = true
        hold(ctx)
      },
      onTimer(_key, ctx) {
        if (!seen) hold(ctx)
        seen = false
        ctx.setTimer('check', regenerateMs!)
      },
      snapshot: () => ({ entered, seen }),
      restore(snapshot) {
        ;({ entered, seen } = snapshot as { entered: boolean; seen: boolean })
      },
    }
  }
}

type BounceMsg = { type: 'try' } | { type: 'busy' }

/**
 * 1 asks (emits `ask`) and tries 2; 2 always answers busy and 1 tries again: a livelock, 1 is
 * never served. With `serveAfterMs`, a timer of 1 serves it (emits `served`) that long after the
 * start, while the bouncing goes on: only a schedule that never lets the timer fire misses it.
 */
export function bounce(serveAfterMs?: number) {
  return (self: NodeId): Protocol<BounceMsg, never, string> => ({
    start(ctx) {
      if (self !== 1) return
      ctx.emit('ask')
      ctx.send(2, { type: 'try' })
      if (serveAfterMs !== undefined) ctx.setTimer('serve', serveAfterMs)
    },
    onMessage(from, msg, ctx) {
      ctx.send(from, { type: msg.type === 'try' ? 'busy' : 'try' })
    },
    onTimer(_key, ctx) {
      ctx.emit('served')
    },
    snapshot: () => null,
    restore: () => undefined,
  })
}

type RaMsg = { type: 'request'; ts: number } | { type: 'ok' }

/**
 * Ricart-Agrawala where every node asks once at start, emits `enter`, then leaves at once (emits
 * `leave`) and answers whom it deferred: every node eventually enters.
 */
export function ricartAgrawalaReleasing() {
  return (self: NodeId): Protocol<RaMsg, never, string> => {
    let clock = 0
    let mine = 0
    let oks = 0
    let requesting = false
    let deferred: NodeId[] = []
    const enter = (ctx: Ctx<RaMsg, string>) => {
      ctx.emit('enter')
      requesting = false
      for (const peer of deferred) ctx.send(peer, { type: 'ok' })
      deferred = []
      ctx.emit('leave')
    }
    return {
      start(ctx) {
        requesting = true
        mine = ++clock
        ctx.broadcast({ type: 'request', ts: mine })
        if (ctx.peers.length === 0) enter(ctx)
      },
      onMessage(from, msg, ctx) {
        if (msg.type === 'ok') {
          if (++oks === ctx.peers.length) enter(ctx)
          return
        }
        clock = Math.max(clock, msg.ts) + 1
        const mineFirst =
          requesting && (mine < msg.ts || (mine === msg.ts && Number(self) < Number(from)))
        if (mineFirst) deferred.push(from)
        else ctx.send(from, { type: 'ok' })
      },
      // Answered all at once on leaving, to different peers: their order is no state.
      snapshot: () => ({ clock, mine, oks, requesting, deferred: [...deferred].sort() }),
      restore(snapshot) {
        ;({ clock, mine, oks, requesting, deferred } = snapshot as {
          clock: number
          mine: number
          oks: number
          requesting: boolean
          deferred: NodeId[]
        })
      },
    }
  }
}
