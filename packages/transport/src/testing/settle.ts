/**
 * For real transports: polls `done` on real timers until it holds.
 * Rejects with a message naming `what` after `timeoutMs`. The default is generous on purpose:
 * it only catches a condition that never comes, so a slow, busy machine never fails a test.
 */
export async function pollUntil(
  done: () => boolean,
  what = 'condition',
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!done()) {
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}
