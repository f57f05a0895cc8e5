import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isSdError } from '../src/index.js'
import { openFileStorage } from '../src/storage-file/index.js'

const work = mkdtempSync(join(tmpdir(), 'sd-file-owner-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
let files = 0
const freshPath = () => join(work, `node-${++files}.json`)

function thrown(body: () => unknown): unknown {
  try {
    body()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('openFileStorage with an owner', () => {
  it('records the owner, and refuses the file to another node or cluster with ERR_STORAGE_OWNER', () => {
    const path = freshPath()
    const mine = openFileStorage(path, { owner: { node: 2, cluster: 'c1' } })
    mine.commit(new Map([['term', 4]]))
    expect(JSON.parse(readFileSync(path, 'utf8')).owner).toEqual({ node: 2, cluster: 'c1' })
    const before = readFileSync(path, 'utf8')
    for (const other of [
      { node: 3, cluster: 'c1' },
      { node: '2', cluster: 'c1' },
      { node: 2, cluster: 'c2' },
      { node: 2 },
    ]) {
      const error = thrown(() => openFileStorage(path, { owner: other }))
      expect(isSdError(error, 'ERR_STORAGE_OWNER'), JSON.stringify(other)).toBe(true)
      expect((error as Error).message).toContain('node 2 of cluster "c1"')
    }
    expect(readFileSync(path, 'utf8')).toBe(before)
    const again = openFileStorage(path, { owner: { node: 2, cluster: 'c1' } })
    expect(again.load().get('term')).toBe(4)
  })

  it('adopts a file that names no owner, and keeps the owner across commits', () => {
    const path = freshPath()
    writeFileSync(path, JSON.stringify({ format: 'sd-storage', version: 1, entries: { term: 1 } }))
    const store = openFileStorage(path, { owner: { node: 'a' } })
    expect(store.load().get('term')).toBe(1)
    store.commit(new Map([['term', 2]]))
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      owner: { node: 'a' },
      entries: { term: 2 },
    })
    expect(
      isSdError(
        thrown(() => openFileStorage(path, { owner: { node: 'b' } })),
        'ERR_STORAGE_OWNER',
      ),
    ).toBe(true)
  })

  it('refuses a malformed owner record as corrupt, and a malformed owner option as an invalid argument', () => {
    const path = freshPath()
    writeFileSync(
      path,
      JSON.stringify({ format: 'sd-storage', version: 1, owner: { node: null }, entries: {} }),
    )
    expect(
      isSdError(
        thrown(() => openFileStorage(path, { owner: { node: 1 } })),
        'ERR_STORAGE_CORRUPT',
      ),
    ).toBe(true)
    expect(
      isSdError(
        thrown(() => openFileStorage(freshPath(), { owner: { node: undefined as never } })),
        'ERR_INVALID_ARGUMENT',
      ),
    ).toBe(true)
  })
})
