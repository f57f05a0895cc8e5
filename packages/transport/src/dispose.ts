/**
 * For handles that `await using` disposes (a lock's, an election's), shared by the packages so
 * that each declares disposal the same way.
 *
 * The type of `Symbol.asyncDispose` where the consumer's libraries declare it (`esnext.disposable`,
 * or Node's types), else `never`: the declarations then compile under a plain `"lib": ["es2022"]`,
 * and `await using` still sees a handle as disposable wherever it is available.
 */
export type AsyncDisposeSymbol = SymbolConstructor extends {
  readonly asyncDispose: infer S extends symbol
}
  ? S
  : never

/** `[Symbol.asyncDispose](): Promise<void>`, declared without requiring `esnext.disposable`. */
export type AsyncDisposableLike = { [K in AsyncDisposeSymbol]: () => Promise<void> }

/**
 * The symbol `await using` calls. Runtimes without a native `Symbol.asyncDispose` (Node before
 * 20.4 / 18.18, some browsers) get `Symbol.for('Symbol.asyncDispose')`, the symbol that esbuild's
 * and tsx's downlevel `await using` (and the usual polyfills) look up then. Node 20.20 has one.
 */
export const asyncDispose: AsyncDisposeSymbol =
  (Symbol.asyncDispose as AsyncDisposeSymbol | undefined) ??
  (Symbol.for('Symbol.asyncDispose') as AsyncDisposeSymbol)
