import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runBlock, typescriptBlocks } from '../../../test-support/readme-blocks.js'

// CONTRIBUTING's example of the package shape: it runs as written and its assertion holds.
const blocks = typescriptBlocks(
  readFileSync(new URL('../../../CONTRIBUTING.md', import.meta.url), 'utf8'),
)

// Only whole programs run; the other blocks are fragments (a test's body, a changeset).
const programs = blocks.filter((b) => b.code.includes('// echo/protocol.ts'))

describe('CONTRIBUTING examples', () => {
  it('has the package-shape example', () => {
    expect(programs).toHaveLength(1)
  })

  for (const block of programs) {
    it(`the example at line ${block.line} runs and its assertions hold`, async () => {
      await runBlock(`contributing-line-${block.line}`, block, new URL('.readme/', import.meta.url))
    })
  }
})
