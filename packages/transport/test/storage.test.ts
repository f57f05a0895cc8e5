import { describe, expect, it } from 'vitest'
import {
  type Ctx,
  isSdError,
  type JsonValue,
  MemoryStorage,
  type ProtocolError,
  runProtocol,
  type StorageBackend,
  StorageIoError,
  type StorageWrites,
} from '../src/index.js'
import { handTransport } from './support/hand.js'

/** A backend that records each commit, and can be told to fail. */
class RecordingStorage implements StorageBackend {
  readonly commits: Array<Record<string, JsonValue | null>> = []
  readonly inner = new MemoryStorage()
  failNext = false
  load() {
    return this.inner.load()
  }
  commit(writes: StorageWrites) {
    if (this.failNext) {
      this.failNext = false
      throw new StorageIoError('/nowhere', 'write', new Error('disk full'))
    }
    this.commits.push(Object.fromEntries([...writes].map(([k, v]) => [k, v ?? null])))
    this.inner.commit(writes)
  }
}

type Req = { set?: Record<string, JsonValue>; del?: string; send?: string; emit?: string }

/** Does what each request says, in the order set, delete, send, emit: effects after writes. */
function scripted(log: string[]) {
  return {
    onMessage() {},
    onRequest(req: Req, ctx: Ctx<string, string>) {
      for (const [key, value] of Object.entries(req.set ?? {})) {
        ctx.storage.set(key, value)
        log.push(`read back ${key}=${JSON.stringify(ctx.storage.get(key))}`)
      }
      if (req.del !== undefined) ctx.storage.delete(req.del)
      if (req.send !== undefined) ctx.send('peer', req.send)
      if (req.emit !== undefined) ctx.emit(req.emit)
    },
  }
}

describe('ctx.storage in runProtocol', () => {
  it('reads see the handler’s own writes, which commit as one batch when it returns', () => {
    const storage = new RecordingStorage()
    const log: string[] = []
    const handle = runProtocol(scripted(log), {
      transport: handTransport('n').transport as never,
      members: ['n', 'peer'],
      storage,
    })
    handle.request({ set: { a: 1, b: { list: [1, 'x', null] } } })
    expect(log).toEqual(['read back a=1', 'read back b={"list":[1,"x",null]}'])
    expect(storage.commits).toEqual([{ a: 1, b: { list: [1, 'x', null] } }])
    handle.request({ del: 'a' })
    expect(storage.commits[1]).toEqual({ a: null })
    expect(storage.inner.snapshot()).toEqual({ b: { list: [1, 'x', null] } })
    handle.request({})
    expect(storage.commits).toHaveLength(2) // a handler that writes nothing commits nothing
  })

  it('a memory store outlives the protocol instance that wrote to it', () => {
    const storage = new MemoryStorage()
    const count = (seen: number[]) => ({
      start(ctx: Ctx<never>) {
        const n = ((ctx.storage.get('n') as number | undefined) ?? 0) + 1
        ctx.storage.set('n', n)
        seen.push(n)
      },
      onMessage() {},
    })
    const seen: number[] = []
    for (let i = 0; i < 3; i++) {
      runProtocol(count(seen), {
        transport: handTransport('n').transport,
        members: [],
        storage,
      }).stop()
    }
    expect(seen).toEqual([1, 2, 3])
    // Without a store of its own, every instance starts empty.
    const fresh: number[] = []
    runProtocol(count(fresh), { transport: handTransport('n').transport, members: [] })
    runProtocol(count(fresh), { transport: handTransport('n').transport, members: [] })
    expect(fresh).toEqual([1, 1])
  })

  it('holds back everything a handler sends or emits until its writes commit', () => {
    const storage = new RecordingStorage()
    const order: string[] = []
    const hand = handTransport('n')
    const transport = {
      ...hand.transport,
      send: (_to: unknown, msg: unknown) => order.push(`send ${String(msg)}`),
    }
    const inner = new MemoryStorage()
    storage.commit = (writes) => {
      order.push(`commit ${[...writes.keys()].join(',')}`)
      inner.commit(writes)
    }
    const handle = runProtocol<string, string, string>(
      {
        onMessage() {},
        onRequest(req, ctx) {
          ctx.send('peer', `${req}: before`)
          ctx.emit(`${req}: before`)
          ctx.storage.set('k', req)
          ctx.send('peer', `${req}: after`)
          ctx.emit(`${req}: after`)
        },
      },
      {
        transport: transport as never,
        members: ['n', 'peer'],
        storage,
        onEvent: (e) => order.push(`emit ${e}`),
      },
    )
    handle.request('r1')
    expect(order).toEqual([
      'commit k',
      'send r1: before',
      'emit r1: before',
      'send r1: after',
      'emit r1: after',
    ])
  })

  it('a handler that sends and emits, writes nothing and then throws, sends and emits nothing', () => {
    const hand = handTransport('n')
    const errors: ProtocolError[] = []
    const events: string[] = []
    const handle = runProtocol<string, string, string>(
      {
        onMessage() {},
        onRequest(req, ctx) {
          ctx.send('peer', req)
          ctx.broadcast(req)
          ctx.emit(req)
          throw new Error('half done')
        },
      },
      {
        transport: hand.transport as never,
        members: ['n', 'peer'],
        onEvent: (e) => events.push(e),
        onError: (e) => errors.push(e),
      },
    )
    handle.request('x')
    expect(errors).toHaveLength(1)
    expect(hand.sent).toEqual([])
    expect(events).toEqual([])
    expect(handle.stopped).toBe(true)
  })

  it('a handler that throws commits nothing and releases nothing it held', () => {
    const storage = new RecordingStorage()
    const hand = handTransport('n')
    const errors: ProtocolError[] = []
    const events: string[] = []
    const handle = runProtocol<string, string, string>(
      {
        onMessage() {},
        onRequest(req, ctx) {
          ctx.storage.set('k', req)
          ctx.send('peer', req)
          ctx.emit(req)
          throw new Error('half done')
        },
      },
      {
        transport: hand.transport as never,
        members: ['n', 'peer'],
        storage,
        onEvent: (e) => events.push(e),
        onError: (e) => errors.push(e),
      },
    )
    handle.request('x')
    expect(errors).toHaveLength(1)
    expect(storage.commits).toEqual([])
    expect(hand.sent).toEqual([])
    expect(events).toEqual([])
  })

  it('a commit that fails stops the protocol with the storage error; the held effects never leave', () => {
    const storage = new RecordingStorage()
    const hand = handTransport('n')
    const errors: ProtocolError[] = []
    const handle = runProtocol(scripted([]), {
      transport: hand.transport as never,
      members: ['n', 'peer'],
      storage,
      onError: (e) => errors.push(e),
    })
    storage.failNext = true
    handle.request({ set: { token: 7 }, send: 'granted 7' })
    expect(hand.sent).toEqual([])
    expect(handle.stopped).toBe(true)
    expect(errors).toHaveLength(1)
    expect(errors[0]!.phase).toBe('request')
    expect(isSdError(errors[0]!.cause, 'ERR_STORAGE_IO')).toBe(true)
    expect(storage.inner.snapshot()).toEqual({})
  })

  it('refuses values JSON cannot hold, with ERR_STORAGE_VALUE, and freezes what it stores', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const bad: Array<[string, unknown]> = [
      ['undefined', undefined],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['function', () => 1],
      ['bigint', 10n],
      ['symbol', Symbol('s')],
      ['Date', new Date(0)],
      ['Map', new Map()],
      ['cycle', cyclic],
      ['nested undefined', { a: [1, { b: undefined }] }],
    ]
    const outcomes: Array<[string, unknown]> = []
    let stored: JsonValue | undefined
    const handle = runProtocol<never, Array<[string, unknown]>>(
      {
        onMessage() {},
        onRequest(values, ctx) {
          for (const [name, value] of values) {
            try {
              ctx.storage.set(name, value as JsonValue)
              outcomes.push([name, 'stored'])
            } catch (error) {
              outcomes.push([name, isSdError(error, 'ERR_STORAGE_VALUE') ? error.key : error])
            }
          }
          // JSON.parse makes "__proto__" an own key, as a peer's message could.
          ctx.storage.set('ok', JSON.parse('{"list":[1,2],"__proto__":"plain key"}'))
          stored = ctx.storage.get('ok')
        },
      },
      { transport: handTransport('n').transport as never, members: [] },
    )
    handle.request(bad)
    expect(outcomes).toEqual(bad.map(([name]) => [name, name]))
    expect(Object.isFrozen(stored)).toBe(true)
    expect(Object.isFrozen((stored as { list: number[] }).list)).toBe(true)
    expect(Object.keys(stored as object)).toEqual(['list', '__proto__'])
    expect(() => {
      ;(stored as { list: number[] }).list.push(3)
    }).toThrow(TypeError)
  })

  it('keys() lists committed and staged keys, without deleted ones', () => {
    const storage = new MemoryStorage({ a: 1, b: 2 })
    let keys: string[] = []
    const handle = runProtocol<never, string>(
      {
        onMessage() {},
        onRequest(_req, ctx) {
          ctx.storage.delete('a')
          ctx.storage.set('c', 3)
          keys = ctx.storage.keys()
        },
      },
      { transport: handTransport('n').transport as never, members: [], storage },
    )
    handle.request('go')
    expect(keys).toEqual(['b', 'c'])
    expect(storage.snapshot()).toEqual({ b: 2, c: 3 })
  })
})
