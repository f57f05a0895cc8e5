/** Seeds for property tests; SD_SEEDS raises or lowers how many. */
export function seedList(defaultCount: number): number[] {
  const count = Number(process.env.SD_SEEDS ?? defaultCount)
  return Array.from({ length: count }, (_, i) => i + 1)
}

/** Runs `body` for every seed and names the seed that failed, so it replays. */
export function forSeeds(seeds: readonly number[], body: (seed: number) => void): void {
  for (const seed of seeds) {
    try {
      body(seed)
    } catch (error) {
      throw new Error(`failed with seed ${seed}: ${(error as Error).message}`, { cause: error })
    }
  }
}
