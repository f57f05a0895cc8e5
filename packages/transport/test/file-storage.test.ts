import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createRandom,
  isSdError,
  type Protocol,
  type ProtocolError,
  runProtocol,
} from '../src/index.js'
import { openFileStorage } from '../src/storage-file/index.js'
import { pollUntil } from '../src/testing/index.js'
import { handTransport } from './support/hand.js'

const work = mkdtempSync(join(tmpdir(), 'sd-file-storage-'))
const children = new Set<ChildProcess>()
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  chmodSync(work, 0o700)
  rmSync(work, { recursive: true, force: true })
})
let files = 0
const freshPath = () => join(work, `node-${++files}.json`)

/** The error `body` throws (fails when it throws nothing). */
function thrown(body: () => unknown): unknown {
  try {
    body()
  } catch (error) {
    return error
  }
  throw new Error('expected an error')
}

/** Counts its starts in storage and emits the count. */
const bootCounter: Protocol<never, never, number> = {
  start(ctx) {
    const boots = ((ctx.storage.get('boots') as number | undefined) ?? 0) + 1
    ctx.storage.set('boots', boots)
    ctx.emit(boots)
  },
  onMessage() {},
}

describe('openFileStorage', () => {
  it('creates the file, and every commit is there for the next process', () => {
    const path = freshPath()
    const store = openFileStorage(path)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      format: 'sd-storage',
      version: 1,
      entries: {},
    })
    const boots: number[] = []
    for (let i = 0; i < 3; i++) {
      // A new store object each time, as a new process would open it.
      runProtocol(bootCounter, {
        transport: handTransport('n').transport as never,
        members: [],
        storage: i === 0 ? store : openFileStorage(path),
        onEvent: (n) => boots.push(n),
      })
    }
    expect(boots).toEqual([1, 2, 3])
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      format: 'sd-storage',
      version: 1,
      entries: { boots: 3 },
    })
    expect(openFileStorage(path).snapshot()).toEqual({ boots: 3 })
  })

  it('refuses a corrupt file with ERR_STORAGE_CORRUPT and leaves it as it was', () => {
    const corrupt = [
      '',
      '{"format":"sd-storage","version":1,"entries":{"boots":3}', // torn
      'not json',
      '[]',
      '{"format":"something-else","version":1,"entries":{}}',
      '{"format":"sd-storage","version":2,"entries":{}}',
      '{"format":"sd-storage","entries":{}}',
      '{"format":"sd-storage","version":1,"entries":[1]}',
      '{"format":"sd-storage","version":1}',
    ]
    for (const content of corrupt) {
      const path = freshPath()
      writeFileSync(path, content)
      const error = thrown(() => openFileStorage(path))
      expect(isSdError(error, 'ERR_STORAGE_CORRUPT'), `${content}: ${error}`).toBe(true)
      if (isSdError(error, 'ERR_STORAGE_CORRUPT')) expect(error.path).toBe(path)
      expect(readFileSync(path, 'utf8')).toBe(content)
    }
  })

  it('reports a place it cannot write with ERR_STORAGE_IO, at open and at commit', () => {
    // A directory that is really a file: nothing can be created under it, not even by root.
    const notADirectory = freshPath()
    writeFileSync(notADirectory, 'a file')
    const atOpen = thrown(() => openFileStorage(join(notADirectory, 'node.json')))
    expect(isSdError(atOpen, 'ERR_STORAGE_IO')).toBe(true)
    if (isSdError(atOpen, 'ERR_STORAGE_IO'))
      expect(atOpen.path).toBe(join(notADirectory, 'node.json'))

    // A directory without write permission (root ignores permissions, so only as another user).
    if (process.getuid?.() !== 0) {
      const readOnly = join(work, 'read-only')
      mkdirSync(readOnly)
      chmodSync(readOnly, 0o500)
      const error = thrown(() => openFileStorage(join(readOnly, 'node.json')))
      expect(isSdError(error, 'ERR_STORAGE_IO')).toBe(true)
      chmodSync(readOnly, 0o700)
    }

    // Writable at open, not at the first commit: the protocol stops with the storage error as
    // cause, nothing it held is released, and the file keeps its last commit.
    const path = freshPath()
    openFileStorage(path)
    mkdirSync(`${path}.tmp`) // the temporary file cannot be created: a directory is in the way
    const errors: ProtocolError[] = []
    const events: number[] = []
    runProtocol(bootCounter, {
      transport: handTransport('n').transport as never,
      members: [],
      storage: openFileStorage(path),
      onEvent: (n) => events.push(n),
      onError: (e) => errors.push(e),
    })
    expect(events).toEqual([])
    expect(errors).toHaveLength(1)
    expect(isSdError(errors[0]!.cause, 'ERR_STORAGE_IO')).toBe(true)
    expect(openFileStorage(path).snapshot()).toEqual({})
  })

  it('survives SIGKILL at random moments: never torn, never older than the last acknowledged write', async () => {
    const script = fileURLToPath(new URL('./support/counter-process.ts', import.meta.url))
    const packageDir = fileURLToPath(new URL('..', import.meta.url))
    const path = freshPath()
    const rand = createRandom('sigkill-plan')
    const kills = 30
    let acknowledged = 0 // the last value a child printed: its commit had returned
    let onDisk = 0
    const outcomes: Array<{ acknowledged: number; onDisk: number }> = []
    for (let round = 0; round < kills; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', script, path, '1000000'], {
        cwd: packageDir,
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      children.add(child)
      try {
        const lines: string[] = []
        let partial = ''
        child.stdout!.on('data', (chunk: Buffer) => {
          const parts = (partial + chunk.toString()).split('\n')
          partial = parts.pop()!
          lines.push(...parts)
        })
        let exited = false
        const exit = new Promise((resolve) => child.once('exit', resolve)).then(() => {
          exited = true
        })
        const wanted = rand.int(1, 40)
        await pollUntil(
          () => lines.length > wanted || exited,
          `${wanted} commits from round ${round}`,
        )
        expect(exited, 'the child died on its own').toBe(false)
        child.kill('SIGKILL')
        await exit
        // The child read back exactly what the file held after the previous kill...
        expect(lines[0]).toBe(`START ${onDisk}`)
        const values = lines.slice(1).map(Number)
        // ...and went on from there, one by one.
        expect(values).toEqual(values.map((_, i) => onDisk + 1 + i))
        acknowledged = values.at(-1) ?? onDisk
        // The file parses (never torn) and holds the last acknowledged value, or the one after
        // it when the kill came between a commit and its print.
        const document = JSON.parse(readFileSync(path, 'utf8'))
        expect(document).toMatchObject({ format: 'sd-storage', version: 1 })
        onDisk = document.entries.count
        expect(
          onDisk === acknowledged || onDisk === acknowledged + 1,
          `${onDisk} vs ${acknowledged}`,
        ).toBe(true)
        outcomes.push({ acknowledged, onDisk })
      } finally {
        child.kill('SIGKILL')
        children.delete(child)
      }
    }
    expect(outcomes).toHaveLength(kills)
    expect(onDisk).toBeGreaterThanOrEqual(kills)
  }, 600_000)
})

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
