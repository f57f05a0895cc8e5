/**
 * NTP inside the simulator: the real 48-byte packets of `../ntp` (request, reply, validation,
 * on-wire arithmetic, clock filter, selection) carried over our transport instead of UDP, so the
 * same pure code runs on drifting simulated clocks and can be checked against true time.
 * Samples are measured on the wall clock, so a step of it flushes the filters; they age on the
 * monotonic clock, so an old sample's bound grows (RFC 5905, section 10).
 */
import {
  arrayOf,
  type Ctx,
  compareNodeIds,
  intIn,
  isBoolean,
  isFiniteNumber,
  isNodeId,
  isString,
  type NodeId,
  type Protocol,
  shape,
} from '@sd/transport'
import { DisciplinedClock, isDisciplinedClockSnapshot } from '../clock/disciplined.js'
import type { SyncRequest } from '../contract.js'
import {
  createNtpRequest,
  type NtpRequest,
  type NtpSample,
  sampleFromReply,
} from '../ntp/client.js'
import { NtpRejectedError } from '../ntp/errors.js'
import { CLOCK_FILTER_SIZE, ClockFilter } from '../ntp/filter.js'
import type { LeapIndicator } from '../ntp/packet.js'
import { selectSources } from '../ntp/select.js'
import { answerNtpRequest } from '../ntp/server.js'
import { checkSnapshot, orNull } from '../snapshot-check.js'
import type { NtpSimEvent } from './events.js'
import { type NtpSimMessage, parseMessage } from './messages.js'
import { type NtpSimOptions, resolveOptions } from './options.js'
import { WallStepWatch } from './step-watch.js'

type NtpSimCtx = Ctx<NtpSimMessage, NtpSimEvent>

/** A sample and when it was measured on the monotonic clock, so that it ages. */
type TimedSample = NtpSample & { measuredAtMs: number }

/** A request and when it was sent on the monotonic clock, to check the round trip's wall time. */
type PendingRequest = NtpRequest & { sentMonotonicMs: number }

const isUint32 = intIn(0, 2 ** 32 - 1)

/** A filter's sample as `snapshot()` writes it: every field `sampleFromReply` gives, and when. */
const isTimedSample = shape({
  offsetMs: isFiniteNumber,
  delayMs: isFiniteNumber,
  errorBoundMs: isFiniteNumber,
  rootDistanceMs: isFiniteNumber,
  serverErrorBoundMs: isFiniteNumber,
  stratum: intIn(0, 255),
  referenceId: isUint32,
  reference: isString,
  leap: intIn(0, 3),
  version: intIn(0, 7),
  precision: intIn(-128, 127),
  rootDelayMs: isFiniteNumber,
  rootDispersionMs: isFiniteNumber,
  t1Ms: isFiniteNumber,
  t2Ms: isFiniteNumber,
  t3Ms: isFiniteNumber,
  t4Ms: isFiniteNumber,
  measuredAtMs: isFiniteNumber,
})

/** What `snapshot()` gives and `restore()` takes. */
const SNAPSHOT_FIELDS = {
  outstanding: arrayOf(
    shape({
      server: isNodeId,
      bytes: arrayOf(intIn(0, 255), { min: 48, max: 48 }),
      transmit: shape({ seconds: isUint32, fraction: isUint32 }),
      t1Ms: isFiniteNumber,
      sentMonotonicMs: isFiniteNumber,
    }),
  ),
  filters: arrayOf(
    shape({ server: isNodeId, samples: arrayOf(isTimedSample, { max: CLOCK_FILTER_SIZE }) }),
  ),
  polling: isBoolean,
  lastClocks: orNull(shape({ wallMs: isFiniteNumber, monotonicMs: isFiniteNumber })),
  clock: isDisciplinedClockSnapshot,
}

/** Float rounding of wall readings in Unix ms (an ulp is 2^-12 ms there), ms. */
const ROUNDING_MS = 1e-3

/** NTP clients and servers over the transport; the factory's second argument shares the clock. */
export function ntpSim(options: NtpSimOptions) {
  const { servers, pollMs, replyTimeoutMs, epochMs } = resolveOptions(options)

  return (
    self: NodeId,
    clock = new DisciplinedClock(options.discipline),
  ): Protocol<NtpSimMessage, SyncRequest, NtpSimEvent> => {
    const serving = servers.includes(self)
    const wall = (ctx: NtpSimCtx) => epochMs + clock.read(ctx.now())
    const outstanding = new Map<NodeId, PendingRequest>()
    const filters = new Map<NodeId, ClockFilter<TimedSample>>()
    const steps = new WallStepWatch()
    let polling = false

    /**
     * Looks for a step of the wall clock since the last event: samples and requests timed on it
     * before the step would be off by the step, so they go (a poll under way then fails).
     */
    const watchSteps = (ctx: NtpSimCtx) => {
      if (serving) return
      const stepMs = steps.observe(ctx.now(), ctx.monotonic())
      if (stepMs === undefined) return
      let dropped = 0
      for (const filter of filters.values()) dropped += filter.flush()
      outstanding.clear()
      ctx.emit({ type: 'filter-flushed', reason: 'wall-clock step', stepMs, dropped })
    }

    const poll = (ctx: NtpSimCtx) => {
      polling = true
      for (const server of servers) {
        const request = createNtpRequest(wall(ctx), { random: ctx.random })
        outstanding.set(server, { ...request, sentMonotonicMs: ctx.monotonic() })
        ctx.send(server, { type: 'ntp', bytes: [...request.bytes] })
      }
      ctx.setTimer('select', replyTimeoutMs)
      ctx.setTimer('poll', pollMs)
    }

    const select = (ctx: NtpSimCtx) => {
      polling = false
      outstanding.clear()
      const estimates: Array<{ server: NodeId; offsetMs: number; rootDistanceMs: number }> = []
      const silent: NodeId[] = []
      // Filters hold offsets to the hardware clock (see onMessage): to the software clock now,
      // subtract what the corrections add to the hardware.
      const corrections = clock.offset(ctx.now())
      const monotonicMs = ctx.monotonic()
      for (const server of servers) {
        const best = filters.get(server)?.bestAt(monotonicMs)
        if (best === undefined) silent.push(server)
        else
          estimates.push({
            server,
            offsetMs: best.sample.offsetMs - corrections,
            // Our clock may have drifted PHI per ms from the server's since the sample.
            rootDistanceMs: best.sample.rootDistanceMs + best.agingMs,
          })
      }
      const selection = selectSources(estimates)
      if (!selection.majority) {
        ctx.emit({
          type: 'sync-failed',
          algorithm: 'ntp',
          reason: `no majority of servers agree (${selection.reason}, ${estimates.length} with samples)`,
        })
        return
      }
      const { lowMs, highMs } = selection.intersection
      ctx.emit({
        type: 'ntp-selection',
        truechimers: selection.truechimers.map((s) => s.server),
        falsetickers: selection.falsetickers.map((s) => s.server),
        silent,
        lowMs,
        highMs,
      })
      const offsetMs = selection.offsetMs
      const readingMs = clock.read(ctx.now())
      const correction = clock.adjust(ctx.now(), offsetMs)
      ctx.emit({
        type: 'adjusted',
        algorithm: 'ntp',
        offsetMs,
        // The truechimers' intersection holds the true offset, if a majority of servers is right.
        errorBoundMs: Math.max(offsetMs - lowMs, highMs - offsetMs),
        readingMs,
        kind: correction.kind,
      })
    }

    return {
      /** The node's state as canonical plain data (requests and filters by server), its clock included. */
      snapshot() {
        const byServer = <V>(map: Map<NodeId, V>) => [...map.keys()].sort(compareNodeIds)
        return {
          outstanding: byServer(outstanding).map((server) => {
            const r = outstanding.get(server)!
            return {
              server,
              bytes: [...r.bytes],
              transmit: { ...r.transmit },
              t1Ms: r.t1Ms,
              sentMonotonicMs: r.sentMonotonicMs,
            }
          }),
          filters: byServer(filters).map((server) => ({
            server,
            samples: filters.get(server)!.samples.map((sample) => ({ ...sample })),
          })),
          polling,
          lastClocks: steps.snapshot(),
          clock: clock.snapshot(),
        }
      },
      /** Takes on what `snapshot()` gave (filters' samples oldest first), the clock included. */
      restore(snapshot) {
        const s = checkSnapshot('ntp', SNAPSHOT_FIELDS, snapshot)
        outstanding.clear()
        for (const r of s.outstanding)
          outstanding.set(r.server, {
            bytes: Uint8Array.from(r.bytes),
            transmit: { seconds: r.transmit.seconds, fraction: r.transmit.fraction },
            t1Ms: r.t1Ms,
            sentMonotonicMs: r.sentMonotonicMs,
          })
        filters.clear()
        for (const f of s.filters) {
          const filter = new ClockFilter<TimedSample>()
          for (const sample of f.samples)
            filter.add({ ...sample, leap: sample.leap as LeapIndicator })
          filters.set(f.server, filter)
        }
        polling = s.polling
        steps.restore(s.lastClocks)
        clock.restore(s.clock)
      },
      start(ctx) {
        watchSteps(ctx)
        if (!serving) poll(ctx)
      },
      onRequest(req, ctx) {
        watchSteps(ctx)
        if (req.type === 'sync' && !serving && !polling) poll(ctx)
      },
      onMessage(from, raw, ctx) {
        watchSteps(ctx)
        const msg = parseMessage(raw)
        if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
        const bytes = Uint8Array.from(msg.bytes)
        if (serving) {
          const now = wall(ctx)
          try {
            ctx.send(from, {
              type: 'ntp',
              bytes: [...answerNtpRequest(bytes, now, now, options.server)],
            })
          } catch (e) {
            if (!(e instanceof NtpRejectedError)) throw e
          }
          return
        }
        const request = outstanding.get(from)
        if (request === undefined) return
        const t4Ms = wall(ctx)
        try {
          const sample: TimedSample = {
            ...sampleFromReply(request, bytes, t4Ms),
            measuredAtMs: ctx.monotonic(),
          }
          // The software clock never goes back: after the hardware was set back it stands still
          // until the hardware catches up, and a round trip timed on it then is too short (the
          // bound would miss the real delay). Beyond what a slew explains, the sample is refused.
          const tripMs = sample.measuredAtMs - request.sentMonotonicMs
          if (Math.abs(t4Ms - request.t1Ms - tripMs) > clock.maxSlewRate * tripMs + ROUNDING_MS) {
            outstanding.delete(from)
            ctx.emit({ type: 'ntp-rejected', server: from, reason: 'wall-clock-step' })
            return
          }
          // Kept against the hardware clock, which no correction moves, so that samples taken
          // before, during and after a slew compare.
          sample.offsetMs += clock.offset(ctx.now())
          outstanding.delete(from)
          const filter = filters.get(from) ?? new ClockFilter<TimedSample>()
          filters.set(from, filter)
          filter.add(sample)
          if (outstanding.size === 0) {
            ctx.cancelTimer('select')
            select(ctx)
          }
        } catch (e) {
          if (!(e instanceof NtpRejectedError)) throw e
          ctx.emit({ type: 'ntp-rejected', server: from, reason: e.reason })
        }
      },
      onTimer(key, ctx) {
        watchSteps(ctx)
        if (key === 'select') select(ctx)
        else if (key === 'poll') poll(ctx)
      },
    }
  }
}
