import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
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
  await import(file.href)
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
