import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'tsup'

/** The CommonJS and the ES module build of one entry, loaded side by side as a user might. */
export interface DualBuild<M> {
  cjs: M
  esm: M
  remove(): void
}

/**
 * Builds `entry` the way the package is published (tsup, both formats) into a temporary folder,
 * then loads the CJS copy with require and the ESM copy with import: two copies of every class.
 * Built here rather than read from dist/, which a parallel `build` may be rewriting.
 */
export async function buildBothFormats<M>(entry: string, tsconfig: string): Promise<DualBuild<M>> {
  const outDir = mkdtempSync(join(tmpdir(), 'sd-dual-build-'))
  const remove = () => rmSync(outDir, { recursive: true, force: true })
  try {
    await build({
      config: false,
      entry: { index: entry },
      format: ['cjs', 'esm'],
      outDir,
      outExtension: ({ format }) => ({ js: format === 'cjs' ? '.cjs' : '.mjs' }),
      platform: 'node',
      target: 'node20',
      tsconfig,
      dts: false,
      sourcemap: false,
      silent: true,
    })
    const cjs = createRequire(join(outDir, 'index.cjs'))('./index.cjs') as M
    const esm = (await import(pathToFileURL(join(outDir, 'index.mjs')).href)) as M
    return { cjs, esm, remove }
  } catch (error) {
    remove()
    throw error
  }
}
