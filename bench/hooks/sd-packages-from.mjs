/**
 * Loaded with `--import` (through NODE_OPTIONS, so worker processes inherit it): when
 * SD_BENCH_PACKAGES names another checkout's `packages/` directory, every `@sd/*` import resolves to
 * that checkout's builds instead of this one's. `pnpm bench:against` uses it to measure an older
 * commit's packages with today's benchmark code. Plain JavaScript: it runs before tsx is loaded.
 */
import { register } from 'node:module'

const packagesDir = process.env.SD_BENCH_PACKAGES
if (packagesDir) {
  register('./sd-packages-resolve.mjs', import.meta.url, { data: { packagesDir } })
}
