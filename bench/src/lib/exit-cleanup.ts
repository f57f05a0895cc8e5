/**
 * Runs a synchronous cleanup if the process exits or is interrupted before the benchmark's own
 * `finally` does it. Returns the function that removes the handlers again.
 */
export function cleanupOnExit(cleanup: () => void): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    cleanup()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.on('exit', cleanup)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return () => {
    process.off('exit', cleanup)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
