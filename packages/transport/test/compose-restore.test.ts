import { describe, expect, it } from 'vitest'
import { ricartAgrawala, vectorBroadcast } from '../../../test-support/explore-protocols.js'
import { type ExploreResult, type ExploreScenario, explore } from '../src/explore/index.js'
import { compose, type NodeId, type Protocol } from '../src/index.js'
import { checkSnapshots, type SnapshotInput } from '../src/testing/index.js'

/** Counts its ticks and re-arms; `forget` leaves the count out of what restore() sets. */
const ticker =
  (forget = false) =>
  (): Protocol<never, { type: 'arm' }, number> => {
    let ticks = 0
    return {
      onMessage() {},
      onRequest(_req, ctx) {
        ctx.setTimer('tick', 5)
      },
      onTimer(_key, ctx) {
        ticks++
        ctx.emit(ticks)
        if (ticks % 3 !== 0) ctx.setTimer('tick', 5)
      },
      snapshot: () => ({ ticks }),
      restore(snapshot) {
        if (!forget) ticks = (snapshot as { ticks: number }).ticks
      },
    }
  }

/** The lock, the broadcast and the ticker on one node: three children, each restorable. */
const trio =
  (forgetTicks = false) =>
  (self: NodeId) =>
    compose({
      ra: ricartAgrawala(true)(self),
      vb: vectorBroadcast()(self),
      tick: ticker(forgetTicks)(),
    })
type Trio = ReturnType<ReturnType<typeof trio>>
type TrioMessage = Parameters<Trio['onMessage']>[1]
type TrioRequest = Parameters<NonNullable<Trio['onRequest']>>[0]

const pick = <T>(random: { int(a: number, b: number): number }, items: readonly T[]): T =>
  items[random.int(0, items.length - 1)]!

/** Inputs for every child: RA and broadcast messages from peers, requests, the ticker's timer. */
function trioInput(
  random: { int(a: number, b: number): number },
  at: { peers: readonly NodeId[]; timers: readonly string[] },
): SnapshotInput<TrioMessage, TrioRequest> {
  const from = pick(random, at.peers)
  switch (random.int(0, 4)) {
    case 0:
      return {
        kind: 'message',
        from,
        msg: {
          proto: 'ra',
          msg: random.int(0, 1) === 0 ? { type: 'ok' } : { type: 'request', ts: random.int(0, 3) },
        },
      }
    case 1:
      return {
        kind: 'message',
        from,
        msg: {
          proto: 'vb',
          msg: { label: 'm', vc: { [String(from)]: random.int(1, 2) } },
        },
      }
    case 2:
      return { kind: 'request', req: { proto: 'vb', req: { payload: pick(random, ['x', 'y']) } } }
    case 3:
      return { kind: 'request', req: { proto: 'tick', req: { type: 'arm' } } }
    default:
      return at.timers.length > 0
        ? { kind: 'timer', key: pick(random, at.timers) }
        : { kind: 'request', req: { proto: 'tick', req: { type: 'arm' } } }
  }
}

describe('compose restore()', () => {
  it('is there when every child has one, and not when one lacks it', () => {
    expect(typeof trio()(1).restore).toBe('function')
    const { restore: _, ...lacking } = ticker()()
    const partly = compose({ ra: ricartAgrawala(true)(1), tick: lacking })
    expect(typeof partly.snapshot).toBe('function')
    expect(partly.restore).toBeUndefined()
  })

  it('gives each child its own part of the snapshot', () => {
    const a = trio()(1)
    a.onMessage(2, { proto: 'ra', msg: { type: 'request', ts: 3 } }, silentCtx())
    const b = trio()(1)
    b.restore!(JSON.parse(JSON.stringify(a.snapshot!())))
    expect(b.snapshot!()).toEqual(a.snapshot!())
    expect(b.snapshot!()).not.toEqual(trio()(1).snapshot!())
  })

  it('refuses a snapshot that is not its own', () => {
    expect(() => trio()(1).restore!(null)).toThrow(/takes the object snapshot\(\) gave/)
    expect(() => trio()(1).restore!({ ra: null, vb: null })).toThrow(/no snapshot for "tick"/)
  })

  it('passes checkSnapshots over random runs, restoring every state it reaches', () => {
    const report = checkSnapshots(trio(), { seeds: 30, peers: [2, 3], inputs: trioInput })
    expect(report.states).toBeGreaterThan(1_000)
    expect(report.comparedPairs).toBeGreaterThan(0)
    expect(report.restored).toBe(report.states)
  })

  it('lets checkSnapshots see a child whose restore() forgets state', () => {
    expect(() => checkSnapshots(trio(true), { seeds: 30, inputs: trioInput })).toThrow(
      /restore\(\) does not give an instance that behaves alike/,
    )
  })
})

describe('exploring composed nodes', () => {
  /** Three composed nodes: each asks for the lock at start, broadcasts once and arms its ticker. */
  const scenario: ExploreScenario = {
    setup(net) {
      net.launch([1, 2, 3], trio())
      net.request(1, { proto: 'vb', req: { payload: 'a' } })
      net.request(2, { proto: 'tick', req: { type: 'arm' } })
    },
    invariant({ events }) {
      const entered = events.filter(
        (e) => (e.event as { proto: string; event: unknown }).event === 'enter',
      )
      return entered.length > 1 ? 'two nodes entered' : undefined
    },
  }
  /** The same nodes with `restore` taken off: the search replays instead. */
  const replaying: ExploreScenario = {
    ...scenario,
    setup(net) {
      const launch = net.launch.bind(net)
      net.launch = ((members, factory) =>
        launch(members, (self: NodeId) => {
          const { restore: _, ...rest } = (factory as ReturnType<typeof trio>)(self)
          return rest
        })) as typeof net.launch
      scenario.setup(net)
    },
  }
  const verdict = (r: ExploreResult) => ({
    mode: r.mode,
    exhausted: r.exhausted,
    states: r.states,
    transitions: r.transitions,
    terminalStates: r.terminalStates,
    counterexample: r.counterexample,
  })

  it('restores saved states instead of replaying, and finds what replaying finds', () => {
    const restoring = explore(scenario, { until: 30 })
    expect(restoring).toMatchObject({ mode: 'stateful', exhausted: true, executions: 1 })
    expect(restoring.restores).toBeGreaterThan(0)
    const replayed = explore(replaying, { until: 30 })
    expect(replayed.restores ?? 0).toBe(0)
    expect(replayed.executions).toBeGreaterThan(1)
    expect(verdict(restoring)).toEqual(verdict(replayed))
  })
})

/** A ctx that drops every effect: enough to move a state by hand. */
function silentCtx() {
  return {
    self: 1,
    peers: [2, 3],
    now: () => 0,
    monotonic: () => 0,
    random: () => 0,
    send() {},
    broadcast() {},
    setTimer() {},
    cancelTimer() {},
    emit() {},
    storage: { get: () => undefined, set() {}, delete() {}, keys: () => [] },
  }
}
