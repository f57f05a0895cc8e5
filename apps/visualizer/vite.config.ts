import { defineConfig } from 'vite'

// Relative asset paths: the built page works from any directory the static server maps it to.
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
  server: { host: '127.0.0.1', strictPort: false },
  preview: { host: '127.0.0.1' },
})
