#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, resolving @sd/* to the workspace sources.
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'

register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) })
await import('../src/cli.ts')
