/** The package name, exported so the stub entry is a real module until the algorithms land. */
export const packageName = '@sd/clocks' as const
