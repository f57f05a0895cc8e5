/**
 * The symbol `await using` calls. Runtimes without a native `Symbol.asyncDispose` get
 * `Symbol.for('Symbol.asyncDispose')`, the one downlevel `await using` and polyfills look up.
 */
export const asyncDispose: typeof Symbol.asyncDispose =
  (Symbol.asyncDispose as typeof Symbol.asyncDispose | undefined) ??
  (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose)
