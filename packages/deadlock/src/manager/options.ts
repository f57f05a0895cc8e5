import { InvalidArgumentError, type NodeId } from '@sd/transport'
import type { ProcessSpec } from '../contract.js'
import type { CentralizedOptions } from '../detect/centralized.js'
import { stepsOf } from './home.js'
import type { Prevention } from './resources.js'

export interface ResourceManagerOptions {
  /** Where each resource lives. */
  resources: Readonly<Record<string, NodeId>>
  /** The processes and their scripts (each runs at its `home`); more with `{ type: 'run' }`. */
  processes?: readonly ProcessSpec[]
  /** How deadlocks are handled: detected by probes, detected centrally, or prevented. */
  strategy:
    | { kind: 'chandy-misra-haas' }
    | ({ kind: 'centralized' } & CentralizedOptions)
    | { kind: 'prevention'; rule: Prevention; restartAfterMs?: number }
    | { kind: 'none' }
}

export interface ResourceManagerSettings {
  resources: Readonly<Record<string, NodeId>>
  processes: readonly ProcessSpec[]
  strategy: ResourceManagerOptions['strategy']
  /** With prevention, how long an aborted process waits before it restarts; else undefined. */
  restartAfterMs: number | undefined
}

/** With prevention, an aborted process restarts after this long (ms) unless told otherwise. */
export const DEFAULT_RESTART_AFTER_MS = 5

/** The options checked: every process uses resources some site owns, and a known rule. */
export function resolveOptions(options: ResourceManagerOptions): ResourceManagerSettings {
  const { resources, strategy } = options
  const processes = options.processes ?? []
  for (const p of processes)
    for (const step of stepsOf(p)) {
      const r = 'acquire' in step ? step.acquire : 'release' in step ? step.release : undefined
      if (r !== undefined && !Object.hasOwn(resources, r))
        throw new InvalidArgumentError(`process ${String(p.id)} uses ${r}, which no site owns`)
      if ('work' in step && !(step.work >= 0))
        throw new InvalidArgumentError(
          `process ${String(p.id)}: work must be >= 0 ms, got ${step.work}`,
        )
    }
  if (strategy.kind === 'prevention' && !['wait-die', 'wound-wait'].includes(strategy.rule))
    throw new InvalidArgumentError(
      `prevention rule must be wait-die or wound-wait, got ${strategy.rule}`,
    )
  const restartAfterMs =
    strategy.kind === 'prevention'
      ? (strategy.restartAfterMs ?? DEFAULT_RESTART_AFTER_MS)
      : undefined
  return { resources, processes, strategy, restartAfterMs }
}
