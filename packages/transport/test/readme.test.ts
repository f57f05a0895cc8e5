import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  type CodeBlock,
  isTestSuite,
  runBlock,
  typescriptBlocks,
} from '../../../test-support/readme-blocks.js'

// Every TypeScript example of this README runs as a test, as written, so the documentation cannot
// drift from the code. The UDP section is found by its heading so that it is known to have examples.
const readmeDir = new URL('.readme/', import.meta.url)
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const UDP_HEADING = '\n## The UDP adapter (`@sd/transport/udp`)\n'
const udpStart = readme.indexOf(UDP_HEADING)
const udpEnd = readme.indexOf('\n## ', udpStart + UDP_HEADING.length)

const inUdpSection = (b: CodeBlock) =>
  udpStart >= 0 && b.offset > udpStart && (udpEnd < 0 || b.offset < udpEnd)
const blocks = typescriptBlocks(readme)
const general = blocks.filter((b) => !inUdpSection(b))
const udp = blocks.filter(inUdpSection)

// A suite example (the compliance suite) declares its tests when loaded, so it is loaded now,
// while this file's tests are being collected.
for (const block of general.filter(isTestSuite))
  await runBlock(`suite-line-${block.line}`, block, readmeDir)

describe('README examples', () => {
  it('the README still has its sections and its examples', () => {
    expect(udpStart, 'the UDP heading').toBeGreaterThan(0)
    expect(general.length).toBeGreaterThanOrEqual(4)
    expect(general.filter(isTestSuite).length).toBeGreaterThanOrEqual(1)
    expect(udp.length, 'examples of the UDP section').toBeGreaterThanOrEqual(3)
  })

  for (const block of [...general.filter((b) => !isTestSuite(b)), ...udp]) {
    it(`the example at line ${block.line} runs and its assertions hold`, async () => {
      await runBlock(`example-line-${block.line}`, block, readmeDir)
    })
  }
})
