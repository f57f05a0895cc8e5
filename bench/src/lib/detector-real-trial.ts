/**
 * One real-process trial of the failure-detector benchmark: n detector-real-worker.ts processes,
 * one per network namespace on one bridge (test-support/netns-hosts.ts), nftables dropping
 * `lossPercent` of the packets entering each; a warm-up, a steady window, then a SIGKILL of one
 * worker and `gapMs` for the others to detect it. Every wait is bounded; the processes are killed
 * by pid and the namespaces deleted whatever happens.
 */
import { fileURLToPath } from 'node:url'
import { machineNow } from '../../../test-support/machine-clock.js'
import { waitUntil } from '../../../test-support/membership-procs.js'
import { createNetnsHosts, type NetnsHosts } from '../../../test-support/netns-hosts.js'
import { killAll, spawnScript, type Worker } from '../../../test-support/processes.js'
import { judgeTrial, type SettingVerdicts, verdictLines } from './detector-real-judge.js'
import type { DetectorWorkerConfig } from './detector-real-worker.js'

const script = fileURLToPath(new URL('./detector-real-worker.ts', import.meta.url))
const benchDir = fileURLToPath(new URL('../..', import.meta.url))

export interface RealTrialPlan {
  n: number
  lossPercent: number
  warmMs: number
  steadyMs: number
  gapMs: number
  victim: number
  /** The workers' settings but their own id, host and seed. */
  worker: Omit<DetectorWorkerConfig, 'id' | 'host' | 'hosts' | 'seed'>
  seed: string
}

export interface RealTrialOutcome {
  verdicts: SettingVerdicts[]
  /** What the steady window really lasted (the parent's timers run late on a loaded machine). */
  steadyMs: number
  /** Event-loop pauses the workers made, all the trial long (the pause condition). */
  pauses: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function runRealTrial(plan: RealTrialPlan): Promise<RealTrialOutcome> {
  const workers: Worker[] = []
  let net: NetnsHosts | undefined
  try {
    net = createNetnsHosts('sddr', plan.n, 216)
    net.loss(plan.lossPercent)
    const hosts = net
    for (let id = 0; id < plan.n; id++) {
      const config: DetectorWorkerConfig = {
        ...plan.worker,
        id,
        host: hosts.addresses[id]!,
        hosts: [...hosts.addresses],
        seed: plan.seed,
      }
      spawnScript(script, benchDir, { ...config }, workers, hosts.exec(id))
    }
    const guard = (what: string) => () => {
      const gone = workers.find((w) => w.exitCode !== undefined)
      if (gone) throw new Error(`worker ${gone.id} exited (${gone.exitCode}) ${what}`)
      return true
    }
    await waitUntil(
      () => guard('before READY')() && workers.every((w) => w.lines.includes('READY')),
      'every worker READY',
      60_000,
    )
    await sleep(plan.warmMs)
    const from = machineNow()
    await sleep(plan.steadyMs)
    guard('in the steady window')()
    const victim = workers[plan.victim]!
    const killAt = machineNow()
    victim.proc.kill('SIGKILL')
    await sleep(plan.gapMs)
    const others = workers.filter((w) => w !== victim)
    if (others.some((w) => w.exitCode !== undefined)) guard('after the kill')()
    for (const w of others) w.proc.stdin!.end()
    await waitUntil(() => workers.every((w) => w.exitCode !== undefined), 'workers exit', 30_000)
    const lines = workers.flatMap((w) => verdictLines(w.lines))
    const verdicts = judgeTrial(lines, {
      n: plan.n,
      settings: plan.worker.settings.length + 2,
      steady: { from, to: killAt },
      victim: plan.victim,
      killAt,
    })
    const pauses = workers.reduce(
      (k, w) => k + w.lines.filter((l) => l.startsWith('PAUSE')).length,
      0,
    )
    return { verdicts, steadyMs: killAt - from, pauses }
  } finally {
    await killAll(workers).finally(() => net?.destroy())
  }
}
