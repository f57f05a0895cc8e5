/** A run's last resort: whatever ends the parent, the node processes and namespaces go with it. */

/**
 * Runs `cleanup` (synchronous) when the process exits, is interrupted (SIGINT, SIGTERM, SIGHUP)
 * or fails; returns the function that removes the handlers.
 */
export function installExitHandlers(
  cleanup: () => void,
  interrupted: (signal: NodeJS.Signals) => void,
): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    try {
      interrupted(signal)
    } catch {} // the cleanup comes first
    cleanup()
    process.stderr.write(
      `\ninterrupted (${signal}): every node process killed, every namespace deleted\n`,
    )
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  const onFatal = (error: unknown) => {
    cleanup()
    process.stderr.write(`${String((error instanceof Error ? error.stack : undefined) ?? error)}\n`)
    process.exit(3)
  }
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  process.on('exit', cleanup)
  for (const s of signals) process.on(s, onSignal)
  process.on('uncaughtException', onFatal)
  process.on('unhandledRejection', onFatal)
  return () => {
    process.off('exit', cleanup)
    for (const s of signals) process.off(s, onSignal)
    process.off('uncaughtException', onFatal)
    process.off('unhandledRejection', onFatal)
  }
}
