import { readmeExamplesSuite } from '../../../test-support/readme-blocks.js'

// Every TypeScript example of the package README runs as written.
readmeExamplesSuite(new URL('../README.md', import.meta.url), new URL('.readme/', import.meta.url))
