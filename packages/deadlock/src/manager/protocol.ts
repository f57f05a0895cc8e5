/**
 * The distributed resource manager: every site runs this protocol. Resources live at sites (each
 * site keeps the lock tables of its own), processes run at sites and lock resources anywhere, so
 * waits come from real lock tables. A detector (Chandy-Misra-Haas or centralized) or a prevention
 * rule (wait-die, wound-wait) runs on top. Everything observable is emitted: waits-for /
 * wait-ended, grants and releases, aborts and finishes, deadlocks with their cycle and victim.
 */
import {
  type Ctx,
  compareNodeIds,
  InvalidArgumentError,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import type { DeadlockRequest } from '../contract.js'
import { CentralizedDetector } from '../detect/centralized.js'
import { CmhDetector } from '../detect/cmh.js'
import { snapshotFields } from '../snapshot.js'
import type { SiteEnv } from './env.js'
import type { ManagerEvent } from './events.js'
import { HomeSide } from './home.js'
import { type ManagerMessage, parseMessage } from './messages.js'
import { type ResourceManagerOptions, resolveOptions } from './options.js'
import { ResourceSide } from './resources.js'
import { strangerIn } from './strangers.js'

export type ManagerCtx = Ctx<ManagerMessage, ManagerEvent>

export type ResourceManagerProtocol = Protocol<ManagerMessage, DeadlockRequest, ManagerEvent>

export function resourceManager(
  options: ResourceManagerOptions,
): ProtocolFactory<ManagerMessage, DeadlockRequest, ManagerEvent> {
  const { resources, processes, strategy, restartAfterMs } = resolveOptions(options)

  return (self: NodeId): ResourceManagerProtocol => {
    /** Messages this site sent itself during the current step, handled before the step ends. */
    const local: Array<{ from: NodeId; msg: ManagerMessage }> = []
    const env: SiteEnv = {
      self,
      sites: (ctx) => [...ctx.peers, self].sort(compareNodeIds),
      siteOf(resource) {
        const site = resources[resource]
        if (site === undefined) throw new InvalidArgumentError(`no site owns resource ${resource}`)
        return site
      },
      send(to, msg, ctx) {
        if (to === self) local.push({ from: self, msg })
        else ctx.send(to, msg)
      },
    }
    const resourceSide = new ResourceSide(
      env,
      strategy.kind === 'prevention' ? strategy.rule : undefined,
    )
    let cmh: CmhDetector | undefined
    const home = new HomeSide(env, {
      restartAfterMs,
      onBlocked: (proc, ctx) => cmh?.initiate(proc, ctx),
    })
    if (strategy.kind === 'chandy-misra-haas') cmh = new CmhDetector(env, home)
    const central =
      strategy.kind === 'centralized'
        ? new CentralizedDetector(env, resourceSide, strategy)
        : undefined

    const handle = (from: NodeId, msg: ManagerMessage, ctx: ManagerCtx) => {
      switch (msg.type) {
        case 'lock-request':
          return resourceSide.request(from, msg.proc, msg.resource, msg.req, ctx)
        case 'lock-release':
          return resourceSide.release(msg.process, msg.resource, msg.req, ctx)
        case 'probe':
          return cmh?.onProbe(msg, ctx)
        case 'verify':
          return cmh?.onVerify(msg, ctx)
        case 'collect':
        case 'confirm':
        case 'local-waits':
        case 'confirmed':
          return central?.onMessage(from, msg, ctx)
        default:
          return home.onMessage(msg, ctx)
      }
    }
    /** Runs `body`, then the messages this site sent itself meanwhile, in order, in the same step. */
    const step = (ctx: ManagerCtx, body: () => void) => {
      body()
      while (local.length > 0) {
        const next = local.shift()!
        handle(next.from, next.msg, ctx)
      }
    }

    return {
      /**
       * The site's state as canonical plain data: its processes, its lock tables and its detector.
       * `local` is always empty between steps, so it is not state.
       */
      snapshot() {
        return {
          home: home.snapshot(),
          resources: resourceSide.snapshot(),
          cmh: cmh === undefined ? null : cmh.snapshot(),
          central: central === undefined ? null : central.snapshot(),
        }
      },
      restore(snapshot) {
        const fields = ['home', 'resources', 'cmh', 'central'] as const
        const s = snapshotFields(snapshot, 'resourceManager()', fields)
        home.restore(s.home)
        resourceSide.restore(s.resources)
        if (cmh !== undefined) cmh.restore(s.cmh)
        if (central !== undefined) central.restore(s.central)
      },
      start(ctx) {
        step(ctx, () => {
          for (const spec of processes) if (spec.home === self) home.add(spec, ctx)
          central?.start(ctx)
        })
      },
      onRequest(req, ctx) {
        step(ctx, () => {
          if (req.type === 'detect') central?.detect(ctx)
          else home.onRequest(req, ctx)
        })
      },
      onMessage(from, raw, ctx) {
        step(ctx, () => {
          const msg = parseMessage(raw)
          if (typeof msg === 'string') return ctx.emit({ type: 'ignored', from, reason: msg })
          const stranger = strangerIn(msg, (r) => Object.hasOwn(resources, r), env.sites(ctx))
          if (stranger !== undefined) return ctx.emit({ type: 'ignored', from, reason: stranger })
          handle(from, msg, ctx)
        })
      },
      onTimer(key, ctx) {
        step(ctx, () => {
          if (!home.onTimer(key, ctx)) central?.onTimer(key, ctx)
        })
      },
    }
  }
}
