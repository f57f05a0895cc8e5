import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runBlock, typescriptBlocks } from '../../../test-support/readme-blocks.js'

// The repository's README: every TypeScript example runs as written.
const readmeDir = new URL('.readme/', import.meta.url)
const blocks = typescriptBlocks(
  readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'),
)

describe('root README examples', () => {
  it('has an example', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(1)
  })

  for (const block of blocks) {
    it(`the example at line ${block.line} runs and its assertions hold`, async () => {
      await runBlock(`root-line-${block.line}`, block, readmeDir)
    })
  }
})
