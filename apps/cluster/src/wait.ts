/** The parent's bounded waits: every wait of a run has a timeout, so a run always ends. */
import { machineNow } from './wire.js'

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `done` every 20 ms for at most `timeoutMs`; whether it came true. */
export async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = machineNow() + timeoutMs
  while (!done()) {
    if (machineNow() > end) return false
    await sleep(20)
  }
  return true
}

/** A small seeded generator (mulberry32), for the clock skews and the nemesis's choices. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
