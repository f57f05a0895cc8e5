import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))

/** Tests import @sd/* from sources, so no build is needed before `vitest run`. */
export const sdAliases = [
  {
    find: /^@sd\/transport\/testing$/,
    replacement: `${root}packages/transport/src/testing/index.ts`,
  },
  { find: /^@sd\/transport\/udp$/, replacement: `${root}packages/transport/src/udp/index.ts` },
  {
    find: /^@sd\/transport\/explore$/,
    replacement: `${root}packages/transport/src/explore/index.ts`,
  },
  {
    find: /^@sd\/transport\/history$/,
    replacement: `${root}packages/transport/src/history/index.ts`,
  },
  {
    find: /^@sd\/transport\/storage-file$/,
    replacement: `${root}packages/transport/src/storage-file/index.ts`,
  },
  { find: /^@sd\/timesync\/udp$/, replacement: `${root}packages/timesync/src/udp.ts` },
  { find: /^@sd\/([a-z]+)$/, replacement: `${root}packages/$1/src/index.ts` },
]

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
