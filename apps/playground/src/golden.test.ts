/**
 * Each scenario's run, compared line by line with its golden trace in `testdata/`. With
 * `SD_UPDATE_GOLDEN=1` the files are rewritten instead (CONTRIBUTING.md, "Golden traces").
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { goldenText } from './golden.js'
import { goldenCases } from './golden-cases.js'
import { goldenMismatch, REWRITE_COMMAND } from './golden-diff.js'

const TESTDATA = fileURLToPath(new URL('../testdata/', import.meta.url))
const UPDATE = process.env.SD_UPDATE_GOLDEN === '1'

describe(`golden traces (testdata/; rewrite: ${REWRITE_COMMAND})`, () => {
  for (const golden of goldenCases) {
    it(golden.file, () => {
      const { net } = golden.scenarioRef.run({
        n: golden.n,
        seed: golden.seed,
        crash: [...golden.crash],
      })
      const actual = goldenText(golden, net.trace)
      const path = `${TESTDATA}${golden.file}`
      // A checkout that turned line ends into CRLF (core.autocrlf) still compares equal.
      const stored = existsSync(path)
        ? readFileSync(path, 'utf8').replaceAll('\r\n', '\n')
        : undefined
      if (UPDATE) {
        if (stored !== actual) {
          writeFileSync(path, actual)
          console.log(`SD_UPDATE_GOLDEN=1: rewrote testdata/${golden.file}`)
        }
        return
      }
      const mismatch = goldenMismatch(golden.file, stored, actual)
      if (mismatch !== undefined) expect.fail(mismatch)
    })
  }

  it('every file in testdata/ belongs to a case (a renamed scenario leaves none behind)', () => {
    const known = new Set(goldenCases.map((c) => c.file))
    const stray = readdirSync(TESTDATA).filter((f) => f.endsWith('.trace') && !known.has(f))
    expect(stray, 'delete these files of scenarios that no longer exist').toEqual([])
  })
})
