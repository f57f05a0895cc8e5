import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FencedStore, readStoreFile } from '../src/store.js'

const T = 2 ** 32
let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

describe('the fenced counter', () => {
  it('takes reads and writes with a token at or above the newest seen, and saves each write', () => {
    dir = mkdtempSync(join(tmpdir(), 'sd-cluster-store-'))
    const path = join(dir, 'counter.json')
    const store = new FencedStore(path)
    expect(readStoreFile(path)).toEqual({
      counter: 0,
      acknowledged: 0,
      newestToken: 0,
      fencingRejections: 0,
    })
    expect(store.read('n1', T + 1)).toEqual({ ok: true, value: 0 })
    expect(store.write('n1', T + 1, 1)).toEqual({ ok: true, value: 1 })
    expect(store.read('n2', T + 2)).toEqual({ ok: true, value: 1 })
    expect(store.write('n2', T + 2, 2)).toEqual({ ok: true, value: 2 })
    expect(readStoreFile(path)).toEqual({
      counter: 2,
      acknowledged: 2,
      newestToken: T + 2,
      fencingRejections: 0,
    })
    expect(store.anomalies).toEqual([])
  })

  it('refuses an older token, on a write and on a read, and counts each refusal', () => {
    const store = new FencedStore()
    // n1 reads under T1#5, is paused; the lock moves on; n2 reads under T2#1.
    expect(store.read('n1', T + 5).ok).toBe(true)
    expect(store.read('n2', 2 * T + 1).ok).toBe(true)
    // n1 wakes up and writes what it read plus one: refused, so n2's increment is not lost.
    const late = store.write('n1', T + 5, 1)
    expect(late.ok).toBe(false)
    expect(store.write('n2', 2 * T + 1, 1).ok).toBe(true)
    expect(store.read('n1', T + 6).ok).toBe(false)
    expect(store.snapshot).toEqual({
      counter: 1,
      acknowledged: 1,
      newestToken: 2 * T + 1,
      fencingRejections: 2,
    })
    expect(store.rejections).toEqual([
      { node: 'n1', kind: 'write', token: T + 5, newest: 2 * T + 1 },
      { node: 'n1', kind: 'read', token: T + 6, newest: 2 * T + 1 },
    ])
  })

  it('records a lost increment (two holders under one token) and the counter falls behind', () => {
    const store = new FencedStore()
    // A broken lock: one token granted to two holders, both read 0, both write 1.
    expect(store.read('n1', T + 1)).toEqual({ ok: true, value: 0 })
    expect(store.read('n2', T + 1)).toEqual({ ok: true, value: 0 })
    expect(store.write('n1', T + 1, 1).ok).toBe(true)
    expect(store.write('n2', T + 1, 1).ok).toBe(true)
    expect(store.snapshot.counter).toBe(1)
    expect(store.snapshot.acknowledged).toBe(2)
    expect(store.anomalies).toEqual([
      `n2 wrote 1 with token ${T + 1} over 1: an increment was lost`,
    ])
  })

  it('refuses malformed tokens and values without counting them as fencing', () => {
    const store = new FencedStore()
    expect(store.read('n1', 0)).toEqual({ ok: false, reason: 'bad token 0' })
    expect(store.read('n1', 1.5).ok).toBe(false)
    expect(store.write('n1', 5, Number.NaN)).toEqual({ ok: false, reason: 'bad value NaN' })
    expect(store.snapshot.fencingRejections).toBe(0)
  })
})
