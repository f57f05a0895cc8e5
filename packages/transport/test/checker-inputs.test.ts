import { describe, expect, it } from 'vitest'
import {
  type Ctx,
  compose,
  emitsOf,
  faultsOf,
  isSdError,
  MemoryStorage,
  readStored,
  SimNetwork,
  storedShapes,
} from '../src/index.js'
import { StagedStorage } from '../src/storage/staged.js'

describe('faultsOf and emitsOf', () => {
  it('read the faults and the emitted events of a run, unwrapping a composed child', () => {
    const say = () => ({
      onMessage() {},
      onRequest(req: string, ctx: Ctx<never, string>) {
        ctx.emit(req)
      },
    })
    const net = new SimNetwork({ seed: 1 })
    net.launch([1, 2], () => compose({ a: say(), b: say() }))
    net.request(1, { proto: 'a', req: 'x' })
    net.request(2, { proto: 'b', req: 'y' })
    net.at(1, () => net.pause(2))
    net.at(2, () => net.stepClock(1, -5))
    net.at(3, () => net.partition([1], [2]))
    net.at(4, () => net.heal())
    net.at(5, () => net.resume(2))
    net.at(6, () => net.crash(1))
    net.at(7, () => net.restart(1))
    net.run()
    expect(emitsOf(net.trace, 'a')).toEqual([{ node: 1, t: 0, event: 'x' }])
    expect(emitsOf(net.trace, 'b')).toEqual([{ node: 2, t: 0, event: 'y' }])
    expect(emitsOf(net.trace).map((e) => e.event)).toEqual([
      { proto: 'a', event: 'x' },
      { proto: 'b', event: 'y' },
    ])
    expect(faultsOf(net.trace).map((f) => f.type)).toEqual([
      'pause',
      'clock-step',
      'partition',
      'heal',
      'resume',
      'crash',
      'restart',
    ])
  })
})

describe('readStored', () => {
  const storage = (entries: Record<string, unknown>) => {
    const inner = new MemoryStorage()
    inner.commit(new Map(Object.entries(entries)) as never)
    return new StagedStorage(inner)
  }

  it('returns what is stored in the right shape, and undefined for nothing', () => {
    const s = storage({ term: 3, vote: { term: 2, for: 'b' } })
    expect(readStored(s, 'term', storedShapes.count)).toBe(3)
    expect(readStored(s, 'none', storedShapes.count)).toBeUndefined()
    const vote = storedShapes.record({ term: storedShapes.count, for: storedShapes.nodeId })
    expect(readStored(s, 'vote', vote)).toEqual({ term: 2, for: 'b' })
  })

  it('refuses a value of the wrong shape with ERR_STORED_STATE, naming key and shape', () => {
    const s = storage({ term: '1', vote: { term: 2 }, neg: -1, frac: 1.5 })
    const vote = storedShapes.record({ term: storedShapes.count, for: storedShapes.nodeId })
    for (const [key, shape] of [
      ['term', storedShapes.count],
      ['neg', storedShapes.count],
      ['frac', storedShapes.count],
      ['vote', vote],
    ] as const) {
      try {
        readStored(s, key, shape as never)
        expect.unreachable(`${key} was accepted`)
      } catch (error) {
        expect(isSdError(error, 'ERR_STORED_STATE'), key).toBe(true)
        expect((error as Error).message).toContain(JSON.stringify(key))
      }
    }
  })
})
