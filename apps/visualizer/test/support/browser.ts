/**
 * The test's side of the browser driver: a loopback-only network namespace (Chromium tries to
 * reach update and DNS servers even headless; there it reaches nothing), the driver started in
 * it, and `call` sending it one command and waiting for its answer.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { pollUntil } from '@sd/transport/testing'
import { createLoopbackNamespace, type LoopbackNamespace } from '../../../../test-support/netns.js'
import { spawnScript, type Worker } from '../../../../test-support/processes.js'

export const CHROMIUM_PATHS = ['/usr/lib/chromium/chromium', '/usr/bin/chromium']
const TAG = 'sd-viz'

export function findChromium(): string | undefined {
  return CHROMIUM_PATHS.find((p) => existsSync(p))
}

/**
 * `browserUnavailable()` for a test file about `what`: a reason to skip (warned about), or
 * undefined to run; with SD_REQUIRE_ALL=1 a reason is an error instead, so CI cannot skip silently.
 */
export function browserGate(what: string): string | undefined {
  const unavailable = browserUnavailable()
  if (unavailable && process.env.SD_REQUIRE_ALL === '1') {
    throw new Error(`the browser tests cannot run (${unavailable}) and SD_REQUIRE_ALL=1`)
  }
  if (unavailable) console.warn(`skipping ${what}: ${unavailable}`)
  return unavailable
}

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux'
  if (process.getuid?.() !== 0) return 'network namespaces need root'
  if (spawnSync('ip', ['-V']).status !== 0) return '`ip` (iproute2) is missing'
  if (!findChromium())
    return `Chromium is missing (apt-get install chromium: ${CHROMIUM_PATHS.join(' or ')})`
  return undefined
}

export interface Answer {
  n?: number
  ok?: boolean
  result?: unknown
  error?: string
  pageErrors: string[]
  ready?: boolean
  origin?: string
  version?: string
}

export class Browser {
  /** `sd-viz-<pid>-<random>`, made by start(). */
  namespace: LoopbackNamespace | undefined
  readonly workers: Worker[] = []
  /** Errors the page reported (uncaught exceptions, console errors), over every command. */
  readonly pageErrors: string[] = []
  version = ''
  private worker: Worker | undefined
  private next = 1
  private read = 0
  private answers = new Map<number, Answer>()

  /** Creates the namespace and starts the driver in it, serving `dist` and `traces`. */
  async start(dist: string, traces: string): Promise<void> {
    // Deletes the namespaces of killed runs first (`sd-viz-<pid>` of a pid no longer alive).
    this.namespace = createLoopbackNamespace(TAG)
    this.worker = spawnScript(
      fileURLToPath(new URL('./browser-driver.ts', import.meta.url)),
      fileURLToPath(new URL('../..', import.meta.url)),
      { id: 'browser', dist, traces, chromium: findChromium() },
      this.workers,
      this.namespace.exec,
    )
    const ready = await this.wait((a) => a.ready === true, 'the browser driver to start')
    this.version = ready.version ?? ''
  }

  private collect(): void {
    const lines = this.worker!.lines
    for (; this.read < lines.length; this.read++) {
      const line = lines[this.read]!
      if (!line.startsWith('{')) continue
      const answer = JSON.parse(line) as Answer
      this.pageErrors.push(...answer.pageErrors)
      this.answers.set(answer.n ?? 0, answer)
    }
  }

  private async wait(match: (a: Answer) => boolean, what: string): Promise<Answer> {
    let found: Answer | undefined
    await pollUntil(
      () => {
        if (this.worker!.exitCode !== undefined)
          throw new Error(
            `the browser driver exited (${this.worker!.exitCode}) waiting for ${what}`,
          )
        this.collect()
        found = [...this.answers.values()].find(match)
        return found !== undefined
      },
      what,
      120_000,
    )
    return found!
  }

  /** Sends one command and returns its result; a failed command throws with the driver's error. */
  async call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const n = this.next++
    this.worker!.proc.stdin!.write(`${JSON.stringify({ n, op, ...args })}\n`)
    const answer = await this.wait((a) => a.n === n, `${op} ${JSON.stringify(args).slice(0, 80)}`)
    this.answers.delete(n)
    if (!answer.ok) throw new Error(`${op} failed in the browser: ${answer.error}`)
    return answer.result as T
  }

  eval<T = unknown>(expr: string): Promise<T> {
    return this.call<T>('eval', { expr })
  }

  /** Closes the browser, then the namespace; safe to call whatever state start() reached. */
  async stop(): Promise<void> {
    const w = this.worker
    if (w && w.exitCode === undefined) {
      w.proc.stdin!.write(`${JSON.stringify({ op: 'close' })}\n`)
      await pollUntil(() => w.exitCode !== undefined, 'the browser driver to exit', 20_000).catch(
        () => w.proc.kill('SIGKILL'),
      )
      await pollUntil(() => w.exitCode !== undefined, 'the browser driver killed', 20_000).catch(
        () => {},
      )
    }
    this.namespace?.destroy()
  }
}
