import { defineConfig, type Options } from 'tsup'

/** One build recipe for every package: ESM + CJS + .d.ts, Node 20, from src/. */
export function packageBuild(entry: Record<string, string> = { index: 'src/index.ts' }) {
  const options: Options = {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    tsconfig: 'tsconfig.build.json',
    // tsup 8 strips `node:` by default; keep imports as written (`node:dgram`, not a bare `dgram`).
    removeNodeProtocol: false,
  }
  return defineConfig(options)
}
