import { defineConfig } from 'vite'
import { sdAliases } from '../../vitest.shared.ts'

// The page runs the packages' sources (one copy of each module: the scenarios and the lab share
// the simulator's class). Relative asset paths: the built site works from any directory.
export default defineConfig({
  base: './',
  resolve: { alias: sdAliases },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
  server: { host: '127.0.0.1', strictPort: false },
  preview: { host: '127.0.0.1' },
})
