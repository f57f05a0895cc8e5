/**
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
 * The symbol `await using` calls. Runtimes without a native `Symbol.asyncDispose` get
 * `Symbol.for('Symbol.asyncDispose')`, the one downlevel `await using` and polyfills look up.
 */
export const asyncDispose: AsyncDisposeSymbol =
  (Symbol.asyncDispose as AsyncDisposeSymbol | undefined) ??
  (Symbol.for('Symbol.asyncDispose') as AsyncDisposeSymbol)
