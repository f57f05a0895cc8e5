import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { packageEntries } from './scripts/package-exports.mjs'

const root = fileURLToPath(new URL('.', import.meta.url))

/**
 * Tests import @sd/* from sources, so no build is needed before `vitest run`: one alias per export
 * of each package.json, to the source tsup builds it from (scripts/package-exports.mjs, which also
 * gives the root tsconfig's `paths`).
 */
export const sdAliases = packageEntries(root).map(({ specifier, source }) => ({
  find: new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}$`),
  replacement: `${root}${source}`,
}))

const HANG_BACKSTOP_MS = 10 * 60_000

export function packageTestConfig() {
  return defineConfig({
    resolve: { alias: sdAliases },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // Tests are bounded by iteration counts, not time; this is only a backstop that names a hung
      // test (a peer that never answers). Ten minutes, far beyond the slowest test on a loaded
      // machine, so slowness alone never fails a run. Long soak runs can pass --testTimeout=0.
      testTimeout: HANG_BACKSTOP_MS,
      hookTimeout: HANG_BACKSTOP_MS,
    },
  })
}
