/**
 * The symbol `await using` calls. Runtimes without a native `Symbol.asyncDispose` (Node before
 * 20.4 / 18.18, some browsers) get `Symbol.for('Symbol.asyncDispose')`, the symbol that esbuild's
 * and tsx's downlevel `await using` (and the usual polyfills) look up then. Node 20.20 has one.
 */
export const asyncDispose: typeof Symbol.asyncDispose =
  (Symbol.asyncDispose as typeof Symbol.asyncDispose | undefined) ??
  (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose)
