/**
 * A member that lies in its gossip: besides running SWIM honestly (so it stays a member), it
 * floods the others with news of nodes that do not exist (hundreds of fresh ids) and with forged
 * news about real members: deaths, leaves and suspicions in the incarnations they are likely in,
 * and at the incarnation ceiling (which no refutation could pass). Over many seeds, with and
 * without admission through the agreed membership (`admit`): the member list stays bounded, no
 * live member is declared dead anywhere, and every refusal of what is beyond belief is a typed
 * `refused` event naming the liar. With admission no stranger enters and no forged leave takes a
 * live member out. Without it (the known limit, shown): the made-up ids fill the list up to
 * `maxMembers`, and a forged leave pushes a live member out of a view until its refutation gets
 * there (SWIM cannot tell a relayed leave from a forged one; the flood slows the refutation).
 */
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { SwimEvent } from '../src/detector/swim/events.js'
import type { MemberUpdate } from '../src/detector/swim/members.js'
import { MAX_INCARNATION, type SwimMessage } from '../src/detector/swim/messages.js'
import type { SwimOptions } from '../src/detector/swim/options.js'
import { type SwimRequest, swim } from '../src/detector/swim/protocol.js'

const HONEST: NodeId[] = [1, 2, 3, 4, 5, 6]
const LIAR: NodeId = 9
const MAX_MEMBERS = 40
const OPTIONS: SwimOptions = { periodMs: 100, probeTimeoutMs: 20, maxMembers: MAX_MEMBERS }
const LIE_EVERY_MS = 30
/** The liar lies from 500 ms to this; the run goes on 2 s more, so refutations can finish. */
const LIES_END_MS = 4_000

/** The liar: honest SWIM, plus every LIE_EVERY_MS a ping to an honest member full of lies. */
function liar(admitted: boolean): ProtocolFactory<SwimMessage, SwimRequest, SwimEvent> {
  const honest = swim(OPTIONS)
  return (self) => {
    const inner = honest(self)
    if (self !== LIAR) {
      if (!admitted) return inner
      // Every honest node follows an agreed view of the real group (the liar is a member).
      return {
        ...inner,
        start: (ctx) => {
          inner.start?.(ctx)
          inner.onRequest?.({ type: 'admit', members: [...HONEST, LIAR] }, ctx)
        },
        snapshot: () => inner.snapshot?.(),
        onMessage: (from, msg, ctx) => inner.onMessage(from, msg, ctx),
        onTimer: (key, ctx) => inner.onTimer?.(key, ctx),
        onRequest: (req, ctx) => inner.onRequest?.(req, ctx),
      } satisfies Protocol<SwimMessage, SwimRequest, SwimEvent>
    }
    let fake = 0
    let seq = 1_000_000
    const lie = (ctx: Ctx<SwimMessage, SwimEvent>) => {
      const target = HONEST[Math.floor(ctx.random() * HONEST.length)]!
      const updates: MemberUpdate[] = []
      // Strangers, never the same twice.
      for (let i = 0; i < 40; i++) {
        updates.push({ kind: 'alive', node: `ghost-${fake++}`, incarnation: 0, from: LIAR })
      }
      // Members, in the incarnations they are likely in, and at the ceiling.
      for (let i = 0; i < 24; i++) {
        const node = HONEST[Math.floor(ctx.random() * HONEST.length)]!
        const kind = (['dead', 'left', 'suspect'] as const)[i % 3]!
        const incarnation = i % 4 === 0 ? MAX_INCARNATION : Math.floor(ctx.random() * 4) // refutations so far
        updates.push({ kind, node, incarnation, from: HONEST[i % HONEST.length]! })
      }
      ctx.send(target, { type: 'ping', seq: seq++, updates })
      if (ctx.monotonic() < LIES_END_MS) ctx.setTimer('lie', LIE_EVERY_MS)
    }
    return {
      start: (ctx) => {
        inner.start?.(ctx)
        ctx.setTimer('lie', 500)
      },
      onMessage: (from, msg, ctx) => inner.onMessage(from, msg, ctx),
      onTimer: (key, ctx) => (key === 'lie' ? lie(ctx) : inner.onTimer?.(key, ctx)),
      onRequest: (req, ctx) => inner.onRequest?.(req, ctx),
    }
  }
}

function run(seed: number, admitted: boolean) {
  const { events } = runInSim([...HONEST, LIAR], liar(admitted), {
    seed,
    net: { latency: { kind: 'uniform', min: 1, max: 10 } },
    until: 6_000,
  })
  return events.filter((e) => HONEST.includes(e.node))
}

describe('SWIM under a member that lies in its gossip', () => {
  for (const admitted of [false, true]) {
    const mode = admitted ? 'admission through the agreed view' : 'gossip admission'
    it(`${mode}: the list stays bounded, no live member is declared dead, refusals name the liar`, () => {
      let refusals = 0
      let outs = 0
      forSeeds(seedList(15), (seed) => {
        const events = run(seed, admitted)
        for (const v of ofType(events, 'view')) {
          expect(v.event.members.length).toBeLessThanOrEqual(MAX_MEMBERS)
          if (admitted) expect(v.event.members.every((id) => typeof id === 'number')).toBe(true)
        }
        // No honest node ever holds a live member dead.
        const deaths = ofType(events, 'dead').filter((e) => HONEST.includes(e.event.node))
        expect(deaths.map((d) => ({ at: d.node, t: d.t, ...d.event }))).toEqual([])
        const refused = ofType(events, 'refused')
        // What is refused about the real members came from the liar alone (without admission,
        // honest members pass the strangers on, and their true deaths, so those are refused
        // from anyone: a full list, a death not yet ripe here).
        const fromLiar = refused.filter((e) => HONEST.includes(e.event.node))
        expect(fromLiar.filter((e) => e.event.from !== LIAR)).toEqual([])
        const reasons = new Set(refused.map((e) => e.event.reason))
        expect(reasons).toContain('incarnation')
        expect(reasons).toContain('unripe-death')
        expect(reasons).toContain(admitted ? 'not-admitted' : 'full')
        if (admitted) expect(reasons).toContain('relayed-leave')
        refusals += refused.length
        // Leaves: with admission no forged one takes a live member out of any view.
        const pushedOut = events.filter(
          (e) => e.event.type === 'member-left' && HONEST.includes(e.event.node),
        )
        if (admitted) expect(pushedOut).toEqual([])
        outs += pushedOut.length
        if (!admitted) return
        // At the end every honest node holds every honest member, and no stranger.
        for (const node of HONEST) {
          const last = ofType(events, 'view')
            .filter((e) => e.node === node)
            .at(-1)!
          expect(last.event.members).toEqual([...HONEST, LIAR])
        }
      })
      expect(refusals).toBeGreaterThan(0)
      // Without admission, forged leaves do push live members out (the known limit).
      if (!admitted) expect(outs).toBeGreaterThan(0)
      console.log(
        `SWIM, hostile gossip (${mode}): ${refusals} refusals over 15 seeds; ` +
          `${outs} live members pushed out of a view by a forged leave`,
      )
    })
  }
})
