import { describe, expect, it } from 'vitest'
import { ricartAgrawala, vectorBroadcast } from '../../../test-support/explore-protocols.js'
import type { NodeId, Protocol } from '../src/index.js'
import { checkSnapshots } from '../src/testing/index.js'

type Cmd = 'inc' | 'toggle' | 'ask'

/** Counts `inc`s and tells on `ask`; `hideCount` leaves the count out of its snapshot. */
const counter = (hideCount: boolean) => (): Protocol<Cmd, never, number> => {
  let count = 0
  let on = false
  return {
    onMessage(_from, cmd, ctx) {
      if (cmd === 'inc') count++
      else if (cmd === 'toggle') on = !on
      else if (on) ctx.emit(count)
    },
    snapshot: () => (hideCount ? { on } : { on, count }),
  }
}

/** Remembers who said hello; `sorted: false` snapshots its Set in insertion order. */
const greeted = (sorted: boolean) => (): Protocol<'hello' | 'count', never, number> => {
  const seen = new Set<NodeId>()
  return {
    onMessage(from, msg, ctx) {
      if (msg === 'hello') seen.add(from)
      else ctx.emit(seen.size)
    },
    snapshot: () => (sorted ? [...seen].sort() : [...seen]),
  }
}

const pick = <T>(random: { int(a: number, b: number): number }, items: readonly T[]): T =>
  items[random.int(0, items.length - 1)]!

describe('checkSnapshots', () => {
  it('passes complete, canonical snapshots', () => {
    const commands = ['inc', 'toggle', 'ask'] as const
    const report = checkSnapshots(counter(false), {
      seeds: 20,
      inputs: (random) => ({ kind: 'message', from: 2, msg: pick(random, commands) }),
    })
    expect(report.states).toBeGreaterThan(100)
    expect(report.comparedPairs).toBeGreaterThan(10)
    checkSnapshots(greeted(true), {
      seeds: 20,
      inputs: (random) => ({
        kind: 'message',
        from: pick(random, [2, 3]),
        msg: pick(random, ['hello', 'count'] as const),
      }),
    })
  })

  it('catches state left out of the snapshot, naming the seed', () => {
    expect(() =>
      checkSnapshots(counter(true), {
        seeds: 20,
        inputs: (random) => ({
          kind: 'message',
          from: 2,
          msg: pick(random, ['inc', 'toggle', 'ask'] as const),
        }),
      }),
    ).toThrow(/checkSnapshots, seed \d+: snapshot\(\) is incomplete/)
  })

  it('catches a snapshot in insertion order', () => {
    expect(() =>
      checkSnapshots(greeted(false), {
        seeds: 20,
        inputs: (random) => ({
          kind: 'message',
          from: pick(random, [2, 3]),
          msg: pick(random, ['hello', 'count'] as const),
        }),
      }),
    ).toThrow(/seed \d+: snapshot\(\) is not canonical/)
  })

  it('catches a snapshot that is not plain data', () => {
    const mapped = (): Protocol<string> => {
      const seen = new Map<string, number>()
      return { onMessage: (_f, m) => void seen.set(m, 1), snapshot: () => ({ seen }) }
    }
    expect(() =>
      checkSnapshots(mapped, { seeds: 1, inputs: () => ({ kind: 'message', from: 2, msg: 'x' }) }),
    ).toThrow(/seed 1, after start: snapshot\.seen is a Map/)
  })

  it('passes the explorer’s test protocols', () => {
    const report = checkSnapshots(ricartAgrawala(true), {
      seeds: 10,
      inputs: (random) => {
        const msg: { type: 'ok' } | { type: 'request'; ts: number } =
          random.int(0, 1) === 0 ? { type: 'ok' } : { type: 'request', ts: random.int(0, 3) }
        return { kind: 'message', from: pick(random, [2, 3]), msg }
      },
    })
    expect(report.comparedPairs).toBeGreaterThan(0)
    checkSnapshots(vectorBroadcast(), {
      seeds: 10,
      inputs: (random) =>
        random.int(0, 2) === 0
          ? { kind: 'request', req: { payload: pick(random, ['x', 'y']) } }
          : {
              kind: 'message',
              from: pick(random, [2, 3]),
              msg: { label: 'm', vc: { '2': random.int(0, 2), '3': random.int(0, 2) } },
            },
    })
  })

  describe('with restore()', () => {
    type Shape = { on: boolean; count: number }
    /** The counter, restorable; `forget` leaves the count out of what restore() sets. */
    const restorable = (forget: boolean) => (): Protocol<Cmd, never, number> => {
      let count = 0
      let on = false
      return {
        onMessage(_from, cmd, ctx) {
          if (cmd === 'inc') count++
          else if (cmd === 'toggle') on = !on
          else if (on) ctx.emit(count)
        },
        snapshot: () => ({ on, count }),
        restore(snapshot) {
          const s = snapshot as Shape
          on = s.on
          if (!forget) count = s.count
        },
      }
    }
    const inputs = (random: { int(a: number, b: number): number }) => ({
      kind: 'message' as const,
      from: 2,
      msg: pick(random, ['inc', 'toggle', 'ask'] as const),
    })
    /** The counter's handler over the state object `st()` gives (the variants below share it). */
    const countInto =
      (st: () => Shape): Protocol<Cmd, never, number>['onMessage'] =>
      (_from, cmd, ctx) => {
        const s = st()
        if (cmd === 'inc') s.count++
        else if (cmd === 'toggle') s.on = !s.on
        else if (s.on) ctx.emit(s.count)
      }

    it('restores every state reached into a fresh instance and runs both on', () => {
      const report = checkSnapshots(restorable(false), { seeds: 10, inputs })
      expect(report.restored).toBe(report.states)
      expect(checkSnapshots(counter(false), { seeds: 2, inputs }).restored).toBe(0)
    })

    it('catches a restore() that leaves state out, naming the seed', () => {
      expect(() => checkSnapshots(restorable(true), { seeds: 10, inputs })).toThrow(
        /seed \d+: restore\(\) does not give an instance that behaves alike/,
      )
    })

    /** The counter with `restoreCopies`; `keeps` makes the object restore() is given its state. */
    const promising = (keeps: boolean) => (): Protocol<Cmd, never, number> => {
      let st: Shape = { on: false, count: 0 }
      return {
        onMessage: countInto(() => st),
        snapshot: () => ({ on: st.on, count: st.count }),
        restoreCopies: true,
        restore(snapshot) {
          const s = snapshot as Shape
          st = keeps ? s : { on: s.on, count: s.count }
        },
      }
    }

    /** The counter with `snapshotCopies`; `shares` hands out its own state object as the snapshot. */
    const fresh = (shares: boolean) => (): Protocol<Cmd, never, number> => {
      const st: Shape = { on: false, count: 0 }
      return {
        onMessage: countInto(() => st),
        snapshot: () => (shares ? st : { on: st.on, count: st.count }),
        snapshotCopies: true,
      }
    }

    it('holds snapshotCopies to its promise: a snapshot reads the same as its instance runs on', () => {
      expect(checkSnapshots(fresh(false), { seeds: 10, inputs }).states).toBeGreaterThan(0)
      expect(() => checkSnapshots(fresh(true), { seeds: 10, inputs })).toThrow(
        /seed \d+: snapshotCopies, yet a snapshot changed as its instance ran on/,
      )
    })

    /** Keeps its promise until restored: then it hands out the object restore() was given. */
    const sharesOnceRestored = (): Protocol<Cmd, never, number> => {
      let st: Shape = { on: false, count: 0 }
      let restored = false
      return {
        onMessage: countInto(() => st),
        snapshot: () => (restored ? st : { on: st.on, count: st.count }),
        snapshotCopies: true,
        restore(snapshot) {
          const s = snapshot as Shape
          st = { on: s.on, count: s.count }
          restored = true
        },
      }
    }

    it('holds a restored instance to snapshotCopies too', () => {
      expect(() => checkSnapshots(sharesOnceRestored, { seeds: 10, inputs })).toThrow(
        /restore\(\) does not give[\s\S]*snapshotCopies, yet a snapshot the restored instance gave/,
      )
    })

    it('holds restoreCopies to its promise: what restore() is given stays unchanged', () => {
      const report = checkSnapshots(promising(false), { seeds: 10, inputs })
      expect(report.restored).toBe(report.states)
      expect(() => checkSnapshots(promising(true), { seeds: 10, inputs })).toThrow(
        /restoreCopies, yet what restore\(\) was given changed/,
      )
    })
  })
})
