export interface PackageEntry {
  /** What code imports: `@sd/transport`, `@sd/transport/testing`. */
  specifier: string
  /** Its source file, relative to the repository root. */
  source: string
}
export function packageEntries(root: string): PackageEntry[]
export function tsconfigPaths(root: string): Record<string, string[]>
