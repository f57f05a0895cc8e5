import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, it } from 'vitest'

// The README's runnable examples (the ```ts blocks that assert something) run as tests,
// so the documentation cannot drift from the code.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
  .map((m) => m[1]!)
  .filter((code) => code.includes('assert'))
const dir = new URL('./.readme/', import.meta.url)

describe('README examples', () => {
  it('has runnable examples', ({ expect }) => {
    expect(blocks.length).toBeGreaterThanOrEqual(2)
  })
  blocks.forEach((code, index) => {
    it(`example ${index + 1} runs and its assertions hold`, async () => {
      mkdirSync(dir, { recursive: true })
      const file = new URL(`example-${index + 1}.ts`, dir)
      writeFileSync(file, code)
      await import(file.href)
    })
  })
})
