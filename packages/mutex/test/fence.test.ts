import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  InvalidArgumentError,
  MemoryStorage,
  StorageOwnerError,
  StoredStateError,
} from '@sd/transport'
import { openFileStorage } from '@sd/transport/storage-file'
import { afterEach, describe, expect, it } from 'vitest'
import { StaleTokenError } from '../src/errors.js'
import { createFence, TOKENS_PER_TERM } from '../src/index.js'

const refusal = (fn: () => void): StaleTokenError => {
  try {
    fn()
  } catch (error) {
    if (error instanceof StaleTokenError) return error
    throw error
  }
  throw new Error('expected a StaleTokenError')
}

describe('createFence: the rule', () => {
  it('accepts equal and newer writes, refuses an older one and names the newest', () => {
    const fence = createFence()
    fence.check(3, { kind: 'write' })
    fence.check(3, { kind: 'write' }) // one holder writes twice under one grant
    fence.check(5, { kind: 'write' })
    const error = refusal(() => fence.check(4, { kind: 'write' }))
    expect(error).toMatchObject({
      code: 'ERR_STALE_TOKEN',
      key: 'default',
      kind: 'write',
      token: 4,
      newest: 5,
      newestKind: 'write',
    })
    expect(error.message).toContain('newer token 5')
    expect(fence.newest()).toEqual({ write: 5, read: 0 })
  })

  it('refuses a read older than an accepted write, and a write older than an accepted read', () => {
    const fence = createFence()
    fence.check(7, { kind: 'read' })
    fence.check(2, { kind: 'read' }) // older than a read only: it comes after every write
    expect(refusal(() => fence.check(4, { kind: 'write' }))).toMatchObject({
      newest: 7,
      newestKind: 'read',
    })
    fence.check(8, { kind: 'write' })
    expect(refusal(() => fence.check(7, { kind: 'read' }))).toMatchObject({
      kind: 'read',
      newest: 8,
      newestKind: 'write',
    })
    fence.check(8, { kind: 'read' })
    expect(fence.newest()).toEqual({ write: 8, read: 8 })
  })

  it('with strictReads, a read older than any accepted token is refused too', () => {
    const fence = createFence({ strictReads: true })
    fence.check(7, { kind: 'read' })
    expect(refusal(() => fence.check(2, { kind: 'read' }))).toMatchObject({
      newest: 7,
      newestKind: 'read',
    })
  })

  it('admit returns the refusal instead of throwing, and leaves the fence where it was', () => {
    const fence = createFence()
    expect(fence.admit(9, { kind: 'write' })).toEqual({ ok: true })
    const verdict = fence.admit(1, { kind: 'write' })
    expect(verdict.ok).toBe(false)
    if (!verdict.ok) expect(verdict.error.newest).toBe(9)
    expect(fence.newest()).toEqual({ write: 9, read: 0 })
  })

  it('compares term-packed tokens in the mutex order: a new term is above every old counter', () => {
    const fence = createFence()
    fence.check(1 * TOKENS_PER_TERM + 1, { kind: 'write' })
    expect(refusal(() => fence.check(TOKENS_PER_TERM - 1, { kind: 'write' })).newest).toBe(
      TOKENS_PER_TERM + 1,
    )
  })

  it('keeps one fence per key', () => {
    const fence = createFence()
    fence.check(10, { kind: 'write', key: 'a' })
    fence.check(1, { kind: 'write', key: 'b' })
    expect(refusal(() => fence.check(2, { kind: 'read', key: 'a' })).key).toBe('a')
    expect(fence.newest('b')).toEqual({ write: 1, read: 0 })
  })

  it('refuses tokens and kinds outside their domain with InvalidArgumentError', () => {
    const fence = createFence()
    for (const token of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => fence.check(token, { kind: 'write' })).toThrow(InvalidArgumentError)
    }
    expect(() => fence.check(1, { kind: 'delete' as 'write' })).toThrow(InvalidArgumentError)
    expect(() => createFence({ name: '' })).toThrow(InvalidArgumentError)
    expect(() => fence.check(1, { kind: 'read', key: 7 as unknown as string })).toThrow(
      InvalidArgumentError,
    )
  })
})

describe('createFence: stored state', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  const tempFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-fence-'))
    dirs.push(dir)
    return join(dir, 'fence.json')
  }

  it('a restarted resource keeps the newest tokens (a file store)', () => {
    const path = tempFile()
    const before = createFence({ name: 'ledger', storage: openFileStorage(path) })
    before.check(5, { kind: 'write', key: 'x' })
    before.check(6, { kind: 'read', key: 'x' })
    const after = createFence({ name: 'ledger', storage: openFileStorage(path) })
    expect(after.newest('x')).toEqual({ write: 5, read: 6 })
    expect(refusal(() => after.check(4, { kind: 'read', key: 'x' })).newest).toBe(5)
  })

  it('a backend that cannot commit throws, and the fence stays where it was', () => {
    let failing = false
    const store = new MemoryStorage()
    const backend = {
      load: () => store.load(),
      commit(writes: Parameters<MemoryStorage['commit']>[0]) {
        if (failing) throw new Error('disk full')
        store.commit(writes)
      },
    }
    const fence = createFence({ storage: backend })
    fence.check(5, { kind: 'write' })
    failing = true
    expect(() => fence.check(6, { kind: 'write' })).toThrow('disk full')
    expect(fence.newest()).toEqual({ write: 5, read: 0 })
    expect(createFence({ storage: store }).newest()).toEqual({ write: 5, read: 0 })
  })

  it('a value of the wrong shape is refused with StoredStateError, never read as empty', () => {
    const store = new MemoryStorage({ 'fence:default': { resource: 'fence', write: '5', read: 0 } })
    const fence = createFence({ storage: store })
    expect(() => fence.check(1, { kind: 'write' })).toThrow(StoredStateError)
    expect(() => fence.newest()).toThrow(/should be an object with resource/)
  })

  it("another resource's state is refused with StoredStateError", () => {
    const store = new MemoryStorage()
    createFence({ name: 'ledger', storage: store }).check(5, { kind: 'write' })
    const other = createFence({ name: 'inventory', storage: store })
    expect(() => other.check(9, { kind: 'write' })).toThrow(StoredStateError)
    expect(() => other.check(9, { kind: 'write' })).toThrow(/resource "inventory"/)
    expect(store.snapshot()).toEqual({
      'fence:default': { resource: 'ledger', write: 5, read: 0 },
    })
  })

  it("another node's file is refused by the file store's owner check", () => {
    const path = tempFile()
    openFileStorage(path, { owner: { node: 'store-1' } })
    expect(() => openFileStorage(path, { owner: { node: 'store-2' } })).toThrow(StorageOwnerError)
    writeFileSync(path, '{"format":"sd-storage","version":1,"entries":{"fence:default":7}}')
    const fence = createFence({ storage: openFileStorage(path) })
    expect(() => fence.check(8, { kind: 'write' })).toThrow(StoredStateError)
  })
})
