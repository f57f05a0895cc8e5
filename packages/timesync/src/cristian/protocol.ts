/**
 * Cristian's algorithm: a client asks a time server; the server answers with its clock C_utc and
 * the time I it spent handling the request; with the request sent at T0 and the answer received
 * at T1 (client clock), the one-way delay is taken as d = (T1 - T0 - I) / 2 and the time as
 * T = C_utc + d. Several samples; the least round trip wins, since its error bound is the least.
 */
import {
  arrayOf,
  type Ctx,
  intIn,
  isFiniteNumber,
  isNodeId,
  isNonNegInt,
  isString,
  type NodeId,
  type Protocol,
  shape,
} from '@sd/transport'
import { DisciplinedClock, isDisciplinedClockSnapshot } from '../clock/disciplined.js'
import type { SyncRequest } from '../contract.js'
import { checkSnapshot, orNull } from '../snapshot-check.js'
import type { CristianEvent } from './events.js'
import { type CristianMessage, parseMessage } from './messages.js'
import { type CristianOptions, resolveOptions } from './options.js'

type CristianCtx = Ctx<CristianMessage, CristianEvent>

interface Sample {
  /** The server's time estimated at T1 (C_utc + d). */
  estimateMs: number
  rttMs: number
  handlingMs: number
  /** The monotonic reading at T1: how long ago the estimate was made is measured from it. */
  atMono: number
}

/** What `snapshot()` gives and `restore()` takes. */
const SNAPSHOT_FIELDS = {
  seq: isNonNegInt,
  // -1 once the awaited reply came: a late copy of it is not taken again.
  sent: intIn(-1, Number.MAX_SAFE_INTEGER),
  sentAt: isFiniteNumber,
  round: orNull(
    shape({
      taken: isNonNegInt,
      best: orNull(
        shape({
          estimateMs: isFiniteNumber,
          rttMs: isFiniteNumber,
          handlingMs: isFiniteNumber,
          atMono: isFiniteNumber,
        }),
      ),
    }),
  ),
  handling: arrayOf(
    shape({ key: isString, from: isNodeId, seq: isNonNegInt, receivedAt: isFiniteNumber }),
  ),
  clock: isDisciplinedClockSnapshot,
}

/**
 * Cristian's algorithm for every node: `server` answers, the others synchronize their software
 * clock to it. The factory's second argument shares a node's clock with another protocol.
 */
export function cristian(options: CristianOptions) {
  const {
    server,
    samples,
    sampleTimeoutMs,
    syncOnStart,
    periodMs,
    handlingMs,
    minDelayMs,
    maxDrift,
    resolutionMs,
  } = resolveOptions(options)

  return (
    self: NodeId,
    clock = new DisciplinedClock(options.discipline),
  ): Protocol<CristianMessage, SyncRequest, CristianEvent> => {
    let seq = 0
    let sent = 0
    let sentAt = 0
    let round: { taken: number; best: Sample | undefined } | undefined
    /** Requests held by the server for its handling time. */
    const handling = new Map<string, { from: NodeId; seq: number; receivedAt: number }>()

    const next = (ctx: CristianCtx) => {
      if (round === undefined) return
      if (round.taken >= samples) return finish(ctx)
      round.taken++
      seq++
      sentAt = ctx.monotonic() // a duration: a step of the wall clock must not bend it
      sent = seq
      ctx.send(server, { type: 'time-request', seq })
      ctx.setTimer('sample', sampleTimeoutMs)
    }

    const finish = (ctx: CristianCtx) => {
      const best = round?.best
      round = undefined
      ctx.cancelTimer('sample')
      if (periodMs !== undefined) ctx.setTimer('resync', periodMs)
      if (best === undefined) {
        ctx.emit({
          type: 'sync-failed',
          algorithm: 'cristian',
          reason: `no answer from server ${String(server)} to ${samples} request(s)`,
        })
        return
      }
      // The estimate moves on with the hardware since T1: the software clock may have been
      // slewing meanwhile, so an offset taken at T1 would be stale.
      const now = ctx.now()
      const elapsed = ctx.monotonic() - best.atMono
      const readingMs = clock.read(now)
      const offsetMs = best.estimateMs + elapsed - readingMs
      const correction = clock.adjust(now, offsetMs)
      // Intervals are measured on this clock: one slow by ρ reads a true T as T (1 - ρ), so the
      // drift allowance per measured ms is ρ / (1 - ρ), not ρ (the explorer found the difference).
      const errorBoundMs =
        Math.max(0, (best.rttMs - best.handlingMs) / 2 - minDelayMs) +
        (maxDrift / (1 - maxDrift)) * (best.rttMs + elapsed) +
        2 * resolutionMs
      ctx.emit({
        type: 'adjusted',
        algorithm: 'cristian',
        offsetMs,
        errorBoundMs,
        readingMs,
        kind: correction.kind,
        source: server,
        rttMs: best.rttMs,
      })
    }

    const startRound = (ctx: CristianCtx) => {
      if (self === server || round !== undefined) return
      ctx.cancelTimer('resync')
      round = { taken: 0, best: undefined }
      next(ctx)
    }

    return {
      /** The node's state as canonical plain data (requests held by key), its clock included. */
      snapshot() {
        return {
          seq,
          sent,
          sentAt,
          round:
            round === undefined
              ? null
              : { taken: round.taken, best: round.best === undefined ? null : { ...round.best } },
          handling: [...handling.keys()].sort().map((key) => ({ key, ...handling.get(key)! })),
          clock: clock.snapshot(),
        }
      },
      /** Takes on what `snapshot()` gave, the clock included; refuses another shape. */
      restore(snapshot) {
        const s = checkSnapshot('cristian', SNAPSHOT_FIELDS, snapshot)
        seq = s.seq
        sent = s.sent
        sentAt = s.sentAt
        const best = s.round?.best
        round =
          s.round === null
            ? undefined
            : {
                taken: s.round.taken,
                best:
                  best == null
                    ? undefined
                    : {
                        estimateMs: best.estimateMs,
                        rttMs: best.rttMs,
                        handlingMs: best.handlingMs,
                        atMono: best.atMono,
                      },
              }
        handling.clear()
        for (const h of s.handling)
          handling.set(h.key, { from: h.from, seq: h.seq, receivedAt: h.receivedAt })
        clock.restore(s.clock)
      },
      start(ctx) {
        if (syncOnStart) startRound(ctx)
        else if (periodMs !== undefined && self !== server) ctx.setTimer('resync', periodMs)
      },
      onRequest(req, ctx) {
        if (req.type === 'sync') startRound(ctx)
      },
      onMessage(from, raw, ctx) {
        const msg = parseMessage(raw)
        if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
        if (msg.type === 'time-request') {
          if (self !== server) return
          if (handlingMs === 0) {
            ctx.send(from, {
              type: 'time-reply',
              seq: msg.seq,
              utcMs: clock.read(ctx.now()),
              handlingMs: 0,
            })
            return
          }
          const key = `handle:${String(from)}:${msg.seq}`
          handling.set(key, { from, seq: msg.seq, receivedAt: ctx.monotonic() })
          ctx.setTimer(key, handlingMs)
          return
        }
        // A reply: only the one we wait for counts (a late one belongs to a sample given up).
        if (round === undefined || msg.seq !== sent || from !== server) return
        const t1 = ctx.monotonic()
        const rttMs = t1 - sentAt
        const oneWay = (rttMs - msg.handlingMs) / 2
        const sample: Sample = {
          estimateMs: msg.utcMs + oneWay,
          rttMs,
          handlingMs: msg.handlingMs,
          atMono: t1,
        }
        const best = round.best
        if (best === undefined || sample.rttMs - sample.handlingMs < best.rttMs - best.handlingMs)
          round.best = sample
        sent = -1
        next(ctx)
      },
      onTimer(key, ctx) {
        if (key === 'sample') return next(ctx)
        if (key === 'resync') return startRound(ctx)
        const held = handling.get(key)
        if (held === undefined) return
        handling.delete(key)
        ctx.send(held.from, {
          type: 'time-reply',
          seq: held.seq,
          utcMs: clock.read(ctx.now()),
          handlingMs: ctx.monotonic() - held.receivedAt,
        })
      },
    }
  }
}
