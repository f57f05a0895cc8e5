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
  { find: /^@sd\/([a-z]+)$/, replacement: `${root}packages/$1/src/index.ts` },
]

export function packageTestConfig() {
  return defineConfig({
    resolve: { alias: sdAliases },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  })
}
