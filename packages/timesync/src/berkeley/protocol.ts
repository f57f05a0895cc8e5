/**
 * Berkeley: nobody has UTC. A master polls every machine, estimates each clock's offset from its
 * answer and half the round trip, averages the offsets that agree (the fault-tolerant average),
 * and sends each machine its own adjustment, relative, not an absolute time, since an absolute
 * time would be stale by its transit when it arrives.
 */
import {
  arrayOf,
  type Ctx,
  isFiniteNumber,
  isNodeId,
  isNonNegInt,
  type NodeId,
  type Protocol,
  shape,
} from '@sd/transport'
import { DisciplinedClock, isDisciplinedClockSnapshot } from '../clock/disciplined.js'
import type { SyncRequest } from '../contract.js'
import { checkSnapshot, orNull } from '../snapshot-check.js'
import { type Estimate, faultTolerantAverage } from './average.js'
import type { BerkeleyEvent } from './events.js'
import { type BerkeleyMessage, parseMessage } from './messages.js'
import { type BerkeleyOptions, resolveOptions } from './options.js'

export type BerkeleyRequest = SyncRequest | { type: 'set-master'; master: NodeId }

type BerkeleyCtx = Ctx<BerkeleyMessage, BerkeleyEvent>

/** What `snapshot()` gives and `restore()` takes (null: no master named). */
const SNAPSHOT_FIELDS = {
  master: orNull(isNodeId),
  roundNo: isNonNegInt,
  polling: orNull(
    shape({
      round: isNonNegInt,
      sentAt: isFiniteNumber,
      estimates: arrayOf(
        shape({ node: isNodeId, offsetMs: isFiniteNumber, uncertaintyMs: isFiniteNumber }),
      ),
    }),
  ),
  clock: isDisciplinedClockSnapshot,
}

/** Berkeley for every node; the factory's second argument shares a node's clock. */
export function berkeley(options: BerkeleyOptions = {}) {
  const { thresholdMs, pollTimeoutMs, syncOnStart, periodMs, minDelayMs, maxDrift } =
    resolveOptions(options)

  return (
    self: NodeId,
    clock = new DisciplinedClock(options.discipline),
  ): Protocol<BerkeleyMessage, BerkeleyRequest, BerkeleyEvent> => {
    let master = options.master
    let roundNo = 0
    let polling: { round: number; sentAt: number; estimates: Map<NodeId, Estimate> } | undefined

    const schedule = (ctx: BerkeleyCtx) => {
      if (periodMs !== undefined && self === master) ctx.setTimer('period', periodMs)
    }

    const startRound = (ctx: BerkeleyCtx) => {
      if (self !== master || polling !== undefined) return
      roundNo++
      polling = { round: roundNo, sentAt: ctx.monotonic(), estimates: new Map() }
      ctx.cancelTimer('period')
      if (ctx.peers.length === 0) return finish(ctx)
      ctx.broadcast({ type: 'berkeley-poll', round: roundNo })
      ctx.setTimer('poll', pollTimeoutMs)
    }

    const finish = (ctx: BerkeleyCtx) => {
      const round = polling
      polling = undefined
      ctx.cancelTimer('poll')
      schedule(ctx)
      if (round === undefined) return
      const now = ctx.now()
      const mine = clock.read(now)
      // Each answer was compared with the master's clock when it arrived; the master's own
      // clock is exact (offset 0, no uncertainty).
      const estimates: Estimate[] = [{ node: self, offsetMs: 0, uncertaintyMs: 0 }]
      for (const e of round.estimates.values()) estimates.push(e)
      const silent = ctx.peers.filter((p) => !round.estimates.has(p))
      if (estimates.length === 1 && ctx.peers.length > 0) {
        ctx.emit({
          type: 'sync-failed',
          algorithm: 'berkeley',
          reason: `no machine answered round ${round.round} within ${pollTimeoutMs} ms`,
        })
        return
      }
      const average = faultTolerantAverage(estimates, thresholdMs)
      const averageMs = average.averageMs
      if (averageMs === undefined) {
        // E.g. two answers (one node down or slow) after one of those clocks stepped: their median
        // lies between them, near neither, and neither may set the other.
        ctx.emit({
          type: 'sync-failed',
          algorithm: 'berkeley',
          reason: `round ${round.round}: no clock within ${thresholdMs} ms of the median ${average.median} ms`,
        })
        return
      }
      const drift = 2 * maxDrift * (ctx.monotonic() - round.sentAt)
      let widest = 0
      for (const e of estimates) widest = Math.max(widest, e.uncertaintyMs)
      const keptWidest = Math.max(
        ...estimates.filter((e) => average.kept.includes(e.node)).map((e) => e.uncertaintyMs),
      )
      ctx.emit({
        type: 'berkeley-round',
        round: round.round,
        averageMs,
        kept: average.kept,
        ignored: average.ignored,
        silent,
        spreadBoundMs: 2 * widest + drift,
      })
      for (const e of estimates) {
        const adjustMs = averageMs - e.offsetMs
        const errorBoundMs = e.uncertaintyMs + keptWidest + drift
        if (e.node === self) apply(ctx, adjustMs, errorBoundMs, mine)
        else
          ctx.send(e.node, { type: 'berkeley-adjust', round: round.round, adjustMs, errorBoundMs })
      }
    }

    const apply = (
      ctx: BerkeleyCtx,
      offsetMs: number,
      errorBoundMs: number,
      readingMs = clock.read(ctx.now()),
    ) => {
      const correction = clock.adjust(ctx.now(), offsetMs)
      ctx.emit({
        type: 'adjusted',
        algorithm: 'berkeley',
        offsetMs,
        errorBoundMs,
        readingMs,
        kind: correction.kind,
        ...(master === undefined ? {} : { source: master }),
      })
    }

    return {
      /** The node's state as plain data (estimates as they came), its clock included. */
      snapshot() {
        return {
          master: master ?? null,
          roundNo,
          polling:
            polling === undefined
              ? null
              : {
                  round: polling.round,
                  sentAt: polling.sentAt,
                  // In the order they came: the average sums them, and the round reports and
                  // adjusts the nodes, in that order.
                  estimates: [...polling.estimates.values()].map((e) => ({ ...e })),
                },
          clock: clock.snapshot(),
        }
      },
      /** Takes on what `snapshot()` gave, the clock included; refuses another shape. */
      restore(snapshot) {
        const s = checkSnapshot('berkeley', SNAPSHOT_FIELDS, snapshot)
        master = s.master ?? undefined
        roundNo = s.roundNo
        polling =
          s.polling === null
            ? undefined
            : {
                round: s.polling.round,
                sentAt: s.polling.sentAt,
                estimates: new Map(
                  s.polling.estimates.map((e) => [
                    e.node,
                    { node: e.node, offsetMs: e.offsetMs, uncertaintyMs: e.uncertaintyMs },
                  ]),
                ),
              }
        clock.restore(s.clock)
      },
      start(ctx) {
        if (self !== master) return
        if (syncOnStart) startRound(ctx)
        else schedule(ctx)
      },
      onRequest(req, ctx) {
        if (req.type === 'sync') return startRound(ctx)
        if (req.type === 'set-master') {
          if (req.master === master) return
          master = req.master
          polling = undefined
          ctx.cancelTimer('poll')
          ctx.cancelTimer('period')
          if (self === master) schedule(ctx)
        }
      },
      onMessage(from, raw, ctx) {
        const msg = parseMessage(raw)
        if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
        switch (msg.type) {
          case 'berkeley-poll':
            ctx.send(from, {
              type: 'berkeley-time',
              round: msg.round,
              clockMs: clock.read(ctx.now()),
            })
            return
          case 'berkeley-time': {
            if (polling === undefined || msg.round !== polling.round) return
            const now = ctx.now()
            // Round trips are durations: on the monotonic clock, which no step bends.
            const half = (ctx.monotonic() - polling.sentAt) / 2
            // The answer left the machine about half a round trip ago: its clock is now about
            // clockMs + half, to within half the round trip less the minimum delay.
            polling.estimates.set(from, {
              node: from,
              offsetMs: msg.clockMs + half - clock.read(now),
              uncertaintyMs: Math.max(0, half - minDelayMs) + maxDrift * 2 * half,
            })
            if (polling.estimates.size === ctx.peers.length) finish(ctx)
            return
          }
          case 'berkeley-adjust':
            // Only the master's adjustments count (a deposed master's late ones do not).
            if (from !== master) return
            apply(ctx, msg.adjustMs, msg.errorBoundMs)
            return
        }
      },
      onTimer(key, ctx) {
        if (key === 'poll') finish(ctx)
        else if (key === 'period') startRound(ctx)
      },
    }
  }
}
