/** Starts deadlock-graph-worker.ts in a worker thread with a large stack and waits for its report. */
import { Worker } from 'node:worker_threads'
import type { SizeReport, SizeRequest } from './deadlock-graph-worker.js'

/** Enough for graphology's recursion over a million-edge graph (it needs tens of MB there). */
const STACK_MB = 1024
const HEAP_MB = 6144

export function measureSize(request: SizeRequest): Promise<SizeReport> {
  // A worker thread does not get the --import tsx of its parent on Node 20, so a small ES module
  // registers tsx first and then imports the TypeScript worker.
  const tsx = import.meta.resolve('tsx/esm/api')
  const worker = new URL('./deadlock-graph-worker.ts', import.meta.url).href
  const boot = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(worker)})`
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
      workerData: request,
      resourceLimits: { stackSizeMb: STACK_MB, maxOldGenerationSizeMb: HEAP_MB },
    })
    let report: SizeReport | undefined
    thread.once('message', (message: SizeReport) => {
      report = message
    })
    thread.once('error', reject)
    thread.once('exit', (code) => {
      if (report !== undefined) resolve(report)
      else reject(new Error(`graph benchmark worker exited with code ${code} and no report`))
    })
  })
}
