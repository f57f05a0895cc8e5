import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../', import.meta.url)
const readme = readFileSync(new URL('README.md', root), 'utf8')
const examples = readdirSync(new URL('examples/', root)).filter((f) => f.endsWith('.ts'))

/** The README quotes every file of examples/ verbatim; running the file runs the README's example. */
describe('README examples', () => {
  it('there are examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5)
  })

  it('every TypeScript block of README.md is one of those files, so every block runs', () => {
    const sources = new Set(
      examples.map((f) => readFileSync(new URL(`examples/${f}`, root), 'utf8').trim()),
    )
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim())
    expect(blocks.length).toBe(examples.length)
    for (const block of blocks) {
      expect(sources.has(block), `a README block that is not a file of examples/:\n${block}`).toBe(
        true,
      )
    }
  })

  it.each(examples)('%s is quoted verbatim in README.md and runs', async (file) => {
    const source = readFileSync(new URL(`examples/${file}`, root), 'utf8').trim()
    expect(
      readme.includes(`\`\`\`ts\n${source}\n\`\`\``),
      `README.md must quote examples/${file}`,
    ).toBe(true)
    // Each example asserts its own results (node:assert) and throws if they are wrong.
    await import(`../examples/${file.replace(/\.ts$/, '')}.ts`)
  })
})
