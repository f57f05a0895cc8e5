/**
 * A member that lies in well-formed messages: every `everyMs`, `count` times, it sends one of its
 * `lies` (or a replay of a message it heard earlier, now in its own name) to a random peer. It
 * runs no algorithm and emits nothing, so everything in the trace is the honest nodes' doing.
 * Lies are typed as the algorithm's messages: the compiler keeps them shape-valid.
 */
import type { NodeId, Protocol } from '@sd/transport'
import type { ElectionRequest } from '../../src/contract.js'

export interface LiarOptions<Msg> {
  lies: readonly Msg[]
  count: number
  everyMs: number
  /** What it sent, in order (a test that fails prints it). */
  sent?: Array<{ to: NodeId; msg: Msg }>
}

/** The liar's timer key. */
const NEXT = 'liar:next'

export function liar<Msg, Ev>(options: LiarOptions<Msg>): Protocol<Msg, ElectionRequest, Ev> {
  let left = options.count
  const heard: Msg[] = []
  return {
    start: (ctx) => ctx.setTimer(NEXT, options.everyMs),
    onMessage(_from, msg) {
      if (heard.length < 200) heard.push(msg)
    },
    onTimer(_key, ctx) {
      if (left-- <= 0 || ctx.peers.length === 0) return
      const to = ctx.peers[Math.floor(ctx.random() * ctx.peers.length)]!
      // Half lies, half replays of what it heard (once it heard anything).
      const pool = heard.length > 0 && ctx.random() < 0.5 ? heard : options.lies
      const msg = pool[Math.floor(ctx.random() * pool.length)]!
      options.sent?.push({ to, msg })
      ctx.send(to, msg)
      ctx.setTimer(NEXT, options.everyMs)
    },
  }
}
