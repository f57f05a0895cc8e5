/**
 * The distributed resource manager: every site runs this protocol. Resources live at sites (each
 * site keeps the lock tables of its own), processes run at sites and lock resources anywhere, so
 * waits come from real lock tables. A detector (Chandy-Misra-Haas or centralized) or a prevention
 * rule (wait-die, wound-wait) runs on top. Everything observable is emitted: waits-for /
 * wait-ended, grants and releases, aborts and finishes, deadlocks with their cycle and victim.
 */
import { type Ctx, InvalidArgumentError, type NodeId, type Protocol } from '@sd/transport'
import type { DeadlockManagerEvent, DeadlockRequest, ProcessSpec } from '../contract.js'
import { CentralizedDetector, type CentralizedOptions } from '../detect/centralized.js'
import { CmhDetector } from '../detect/cmh.js'
import type { SiteEnv } from './env.js'
import { HomeSide, stepsOf } from './home.js'
import type { ManagerMsg } from './messages.js'
import { type Prevention, ResourceSide } from './resources.js'
import { parseManagerMessage, strangerIn } from './wire.js'

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

export type ResourceManagerProtocol = Protocol<ManagerMsg, DeadlockRequest, DeadlockManagerEvent>

export function resourceManager(options: ResourceManagerOptions) {
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

  return (self: NodeId): ResourceManagerProtocol => {
    let ctx: Ctx<ManagerMsg, DeadlockManagerEvent> | undefined
    const local: Array<{ from: NodeId; msg: ManagerMsg }> = []
    const env: SiteEnv = {
      self,
      get sites() {
        return [...ctx!.peers, self].sort(compareIds)
      },
      siteOf(resource) {
        const site = resources[resource]
        if (site === undefined) throw new InvalidArgumentError(`no site owns resource ${resource}`)
        return site
      },
      send(to, msg) {
        if (to === self) local.push({ from: self, msg })
        else ctx!.send(to, msg)
      },
      emit: (event) => ctx!.emit(event),
      ctx: () => ctx!,
    }
    const resourceSide = new ResourceSide(
      env,
      strategy.kind === 'prevention' ? strategy.rule : undefined,
    )
    let cmh: CmhDetector | undefined
    const home = new HomeSide(env, {
      restartAfterMs: strategy.kind === 'prevention' ? (strategy.restartAfterMs ?? 5) : undefined,
      onBlocked: (proc) => cmh?.initiate(proc),
    })
    if (strategy.kind === 'chandy-misra-haas') cmh = new CmhDetector(env, home)
    const central =
      strategy.kind === 'centralized'
        ? new CentralizedDetector(env, resourceSide, strategy)
        : undefined

    const handle = (from: NodeId, msg: ManagerMsg) => {
      switch (msg.type) {
        case 'lock-request':
          return resourceSide.request(from, msg.proc, msg.resource, msg.req)
        case 'lock-release':
          return resourceSide.release(msg.process, msg.resource, msg.req)
        case 'probe':
          return cmh?.onProbe(msg)
        case 'verify':
          return cmh?.onVerify(msg)
        case 'collect':
        case 'confirm':
        case 'local-waits':
        case 'confirmed':
          return central?.onMessage(from, msg)
        default:
          return home.onMessage(msg)
      }
    }
    /** Runs `body`, then the messages this site sent itself meanwhile, in order. */
    const step = (c: Ctx<ManagerMsg, DeadlockManagerEvent>, body: () => void) => {
      ctx = c
      body()
      while (local.length > 0) {
        const next = local.shift()!
        handle(next.from, next.msg)
      }
    }

    return {
      start(c) {
        step(c, () => {
          for (const spec of processes) if (spec.home === self) home.add(spec)
          central?.start()
        })
      },
      onRequest(req, c) {
        step(c, () => {
          if (req.type === 'detect') central?.detect()
          else home.onRequest(req)
        })
      },
      onMessage(from, raw, c) {
        step(c, () => {
          const msg = parseManagerMessage(raw)
          const refused =
            typeof msg === 'string'
              ? msg
              : strangerIn(msg, (r) => Object.hasOwn(resources, r), env.sites)
          if (refused !== undefined) c.emit({ type: 'ignored', from, reason: refused })
          else handle(from, msg as ManagerMsg)
        })
      },
      onTimer(key, c) {
        step(c, () => {
          if (!home.onTimer(key)) central?.onTimer(key)
        })
      },
    }
  }
}

function compareIds(a: NodeId, b: NodeId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
}
