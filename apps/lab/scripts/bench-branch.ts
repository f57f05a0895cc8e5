/**
 * The time to branch at a past step of a run of 5,000 events (flood at n = 48 run to its end,
 * 4,464 steps): `choose` at a step in the past, which brings the network back there and takes the
 * step. Prints the median and spread over branches spread along the run, for the engine in
 * `src/engine` or the one in the directory given (an older copy of it, to compare in the same
 * session: `tsx scripts/bench-branch.ts /tmp/old-engine`). Figures only, asserted nowhere: the
 * machine is shared.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { defaultConfig } from '../src/engine/config.js'
import type { LabRun as Run } from '../src/engine/lab-run.js'
import { parseSteps } from '../src/engine/steps.js'

const SAMPLES = 24
const dir = process.argv[2]
  ? resolve(process.argv[2])
  : resolve(import.meta.dirname, '../src/engine')
const { LabRun } = (await import(pathToFileURL(`${dir}/lab-run.ts`).href)) as {
  LabRun: typeof Run
}

const config = defaultConfig('flood', 48)
const whole = new LabRun(config)
whole.run(20_000)
const steps = parseSteps(whole.stepsText())
const length = whole.length
const times: number[] = []
for (let k = 0; k < SAMPLES; k++) {
  // Branch points spread over the run, none on a checkpoint (every 200 steps).
  const at = Math.floor((length * (k + 0.5)) / SAMPLES) | 1
  const run = new LabRun({ ...config, steps })
  run.goTo(at)
  const t0 = performance.now()
  run.choose({ kind: 'crash', node: '2' })
  times.push(performance.now() - t0)
  if (run.length !== at + 1) throw new Error('the branch did not cut the line')
}
times.sort((a, b) => a - b)
const ms = (x: number) => `${x.toFixed(1)} ms`
console.log(
  `${dir}: flood n=48, ${length} steps, ${whole.net.trace.length} trace entries; branch (crash 2 at a past step) over ${SAMPLES} steps: median ${ms(times[SAMPLES / 2]!)}, from ${ms(times[0]!)} to ${ms(times.at(-1)!)}`,
)
