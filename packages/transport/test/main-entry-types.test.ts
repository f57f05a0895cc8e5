import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

// The main entry is documented as browser-safe, so its declarations must type-check in a project
// that has neither DOM nor Node types. The declarations are emitted from the sources here (not read
// from dist/, which may be stale or being rebuilt), then a consumer with `lib: es2022` and
// `types: []` compiles against them.

const require = createRequire(import.meta.url)
const tsc = require.resolve('typescript/lib/tsc.js')
// The package itself is compiled with Node types, found from here rather than from the temp folder.
const typeRoots = [dirname(dirname(require.resolve('@types/node/package.json')))]
const pkg = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'sd-main-entry-types-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Runs the workspace's tsc; resolves with its exit code and output (it never rejects). */
function runTsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsc, '-p', project],
      { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, output: `${stdout}${stderr}` })
      },
    )
  })
}

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value, null, 2))
  return path
}

const consumerSource = `
import * as sd from '@sd/transport'

// A signal of our own: the entry must not demand the DOM's or Node's AbortSignal.
const signal: sd.AbortSignalLike = { aborted: false, throwIfAborted() {} }
const net = new sd.SimNetwork({ seed: 1, latency: { kind: 'uniform', min: 1, max: 5 } })
net.addNode('a')
export const done: Promise<sd.RunResult> = net.runRealtime({ speed: 10, signal })
export const handle = (t: sd.Transport<string>): sd.ProtocolHandle<string, string> =>
  sd.runProtocol<string, string, string>(
    { start: (ctx) => ctx.broadcast('hi'), onMessage: (_from, _msg, ctx) => ctx.emit('got') },
    { transport: t, members: ['a', 'b'] },
  )
export const known = (error: unknown): boolean => sd.isSdError(error, 'ERR_UNKNOWN_NODE')
`

describe('the main entry of @sd/transport', () => {
  it('type-checks in a consumer without DOM or Node types', async () => {
    const types = join(work, 'types')
    const emit = await runTsc(
      writeJson(join(work, 'tsconfig.emit.json'), {
        extends: pkg('tsconfig.build.json'),
        compilerOptions: {
          rootDir: pkg('src'),
          outDir: types,
          typeRoots,
          emitDeclarationOnly: true,
          declarationMap: false,
          sourceMap: false,
        },
        files: [pkg('src/index.ts')],
        include: [],
      }),
    )
    expect(emit.output, 'emitting the declarations of src/index.ts').toBe('')
    expect(emit.code).toBe(0)

    writeFileSync(join(work, 'consumer.ts'), consumerSource)
    const check = await runTsc(
      writeJson(join(work, 'tsconfig.json'), {
        compilerOptions: {
          target: 'ES2022',
          lib: ['es2022'],
          types: [],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          paths: { '@sd/transport': [join(types, 'index.d.ts')] },
        },
        files: [join(work, 'consumer.ts')],
      }),
    )
    expect(check.output, 'tsc on a consumer with lib es2022 and types []').toBe('')
    expect(check.code).toBe(0)
  }, 600_000)
})
