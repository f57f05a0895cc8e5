import { type MutexRequest, type TokenRingMessage, tokenRing } from '@sd/mutex'
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import { explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { sd } from './broken-variants.js'
import type { MutexEv } from './mutex.js'
import { tokenRingCheck, tokenRingScenario } from './mutex-token-ring.js'
import { defaultsAt } from './spec.js'

/** name: whether its default run is exhausted (false: bounded by maxSchedules). */
const SPECS = { 'mutex-token-ring': true, 'mutex-lamport': false, 'mutex-maekawa': true }

describe('sd check: the mutex specs run their defaults with no violation', () => {
  for (const [name, exhausted] of Object.entries(SPECS))
    it(name, () => {
      const { code, out } = sd('check', name, '--json')
      expect(code, out).toBe(0)
      const result = JSON.parse(out)
      expect(result).toMatchObject({ scenario: name, exhausted, violations: [], cutByDepth: 0 })
      expect(result.schedules).toBeGreaterThan(1)
    })

  it('reports the stateful search: its states, transitions, and states per second', () => {
    const { out } = sd('check', 'mutex-maekawa', '--json')
    const result = JSON.parse(out)
    expect(result.search).toBe('stateful')
    expect(result.states).toBeGreaterThan(100)
    // Every state but the first was reached by a transition.
    expect(result.transitions).toBeGreaterThanOrEqual(result.states - 1)
    expect(result.statesPerSecond).toBeGreaterThan(0)
    const text = sd('check', 'mutex-maekawa').out
    expect(text).toContain('search: stateful')
    expect(text).toMatch(/\(\d+ states\/s\)/)
  })

  it('the token ring spec injects its one loss by default', () => {
    expect(defaultsAt(tokenRingCheck, tokenRingCheck.defaultN).faults).toEqual({ loss: 1 })
  })
})

/**
 * The token ring with a defect: every pass of the token (and its commit) also goes to the node
 * after the successor, so two nodes may hold a usable token at once.
 */
const passesTwice: ProtocolFactory<TokenRingMessage, MutexRequest, MutexEv> = (self: NodeId) => {
  const inner = tokenRing({ holdMs: 2, ackTimeoutMs: 5, lostTokenTimeoutMs: 10_000 })(self)
  const wrap = (ctx: Ctx<TokenRingMessage, MutexEv>): Ctx<TokenRingMessage, MutexEv> => ({
    ...ctx,
    get peers() {
      return ctx.peers
    },
    now: () => ctx.now(),
    monotonic: () => ctx.monotonic(),
    send(to, msg) {
      ctx.send(to, msg)
      const other = ctx.peers.find((p) => p !== to && p !== self)
      if ((msg.type === 'token' || msg.type === 'commit') && other !== undefined)
        ctx.send(other, msg)
    },
    broadcast: (msg) => ctx.broadcast(msg),
    setTimer: (key, ms) => ctx.setTimer(key, ms),
    cancelTimer: (key) => ctx.cancelTimer(key),
    random: () => ctx.random(),
    emit: (event) => ctx.emit(event),
  })
  const protocol: Protocol<TokenRingMessage, MutexRequest, MutexEv> = {
    onMessage: (from, msg, ctx) => inner.onMessage(from, msg, wrap(ctx)),
  }
  if (inner.start) protocol.start = (ctx) => inner.start!(wrap(ctx))
  if (inner.onTimer) protocol.onTimer = (key, ctx) => inner.onTimer!(key, wrap(ctx))
  if (inner.onRequest) protocol.onRequest = (req, ctx) => inner.onRequest!(req, wrap(ctx))
  return protocol
}

describe('sd check mutex-token-ring: a ring that passes the token twice is caught', () => {
  it('two sections overlap (or a token does not rise) within the default bounds', () => {
    const scenario = tokenRingScenario(3, passesTwice)
    const result = explore(scenario, defaultsAt(tokenRingCheck, tokenRingCheck.defaultN))
    expect(result.counterexample?.message).toMatch(
      /in the critical section at once|with a token not larger/,
    )
  })
})
