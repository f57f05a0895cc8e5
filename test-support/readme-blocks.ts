import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/** A fenced TypeScript block of a Markdown file, where it starts (offset) and its first code line. */
export interface CodeBlock {
  code: string
  offset: number
  line: number
}

/** Every ```ts block of `markdown`, in order. */
export function typescriptBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => ({
    code: m[1]!,
    offset: m.index,
    line: markdown.slice(0, m.index).split('\n').length + 1,
  }))
}

/** A block that declares vitest suites (it must be loaded while the test file is collected). */
export function isTestSuite(block: CodeBlock): boolean {
  return /from '(vitest|@sd\/transport\/testing)'/.test(block.code)
}

/**
 * Writes a block to `dir` (a package's test/.readme/, git-ignored) and imports it, which runs it:
 * the examples assert their own results with node:assert, so a wrong one throws. Inside a
 * package's test/, `@sd/*` resolves to the sources.
 */
export async function runBlock(name: string, block: CodeBlock, dir: URL): Promise<void> {
  mkdirSync(dir, { recursive: true })
  const file = new URL(`${name}.ts`, dir)
  writeFileSync(file, block.code)
  if (startsProcessesOfItself(block)) runInOwnProcess(file)
  else await import(file.href)
}

/** A block that starts copies of itself (`process.execArgv`): it must be a process's main file. */
function startsProcessesOfItself(block: CodeBlock): boolean {
  return block.code.includes('process.execArgv')
}

const root = new URL('../', import.meta.url)

/** A user's shell environment, not vitest's (its variables change what runs under them). */
function userEnvironment(): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env
  return { PATH, HOME, TMPDIR }
}

/**
 * Runs `file` as its own process, with tsx as a user runs it; the root tsconfig's paths map
 * `@sd/*` to the sources (for its children too, which inherit the environment). Throws with the
 * process's output when it fails.
 */
function runInOwnProcess(file: URL): void {
  execFileSync(fileURLToPath(new URL('node_modules/.bin/tsx', root)), [fileURLToPath(file)], {
    cwd: fileURLToPath(root),
    env: { ...userEnvironment(), TSX_TSCONFIG_PATH: fileURLToPath(new URL('tsconfig.json', root)) },
    stdio: 'pipe',
    timeout: 60_000,
  })
}

/**
 * The test suite of a package whose README examples all run as written: one test per ```ts block
 * of `readme`, written to `dir` and run (see `runBlock`), and one that the README has examples.
 */
export function readmeExamplesSuite(readme: URL, dir: URL): void {
  const blocks = typescriptBlocks(readFileSync(readme, 'utf8'))
  describe('README examples', () => {
    it('has examples', () => {
      expect(blocks.length).toBeGreaterThanOrEqual(1)
    })
    for (const block of blocks) {
      it(`the example at line ${block.line} runs and its assertions hold`, async () => {
        await runBlock(`example-line-${block.line}`, block, dir)
      })
    }
  })
}
