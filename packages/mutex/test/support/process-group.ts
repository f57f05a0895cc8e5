/**
 * Starting and ending a group of worker processes for the multi-process tests: spawned with their
 * configs, told to `go` once every one printed `READY`, then `exit` once every live one is `DONE`.
 */
import { pollUntil } from '@sd/transport/testing'
import { expect } from 'vitest'
import { spawnScript, type Worker } from '../../../../test-support/processes.js'

/** Spawns one worker of `script` per config (pushed on `into` for the caller's cleanup), all READY. */
export async function spawnReady(
  script: string,
  cwd: string,
  configs: ReadonlyArray<Record<string, unknown>>,
  into: Worker[],
): Promise<Worker[]> {
  const group = configs.map((config) => spawnScript(script, cwd, config, into))
  await pollUntil(
    () => group.every((w) => w.lines.includes('READY') || w.exitCode !== undefined),
    'every worker READY',
    120_000,
  )
  for (const w of group) expect(w.exitCode, `${w.id} exited before READY`).toBeUndefined()
  return group
}

/** Waits until every live worker is DONE, tells them to exit, and waits for their exits. */
export async function finish(group: readonly Worker[]): Promise<void> {
  await pollUntil(
    () => group.every((w) => w.lines.includes('DONE') || w.exitCode !== undefined),
    'every worker DONE',
    120_000,
  )
  for (const w of group) if (w.exitCode === undefined) w.proc.stdin!.end('exit\n')
  await pollUntil(() => group.every((w) => w.exitCode !== undefined), 'workers exited', 60_000)
}

/** How many of `w`'s lines start with `word`. */
export const count = (w: Worker, word: string) =>
  w.lines.filter((l) => l.startsWith(`${word} `)).length

/** The lines of `w` starting with `word`, split on spaces (the word dropped). */
export const linesOf = (w: Worker, word: string) =>
  w.lines.filter((l) => l.startsWith(`${word} `)).map((l) => l.split(' ').slice(1))
