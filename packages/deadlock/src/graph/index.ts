// The wait-for graph's public exports (filled in as the module lands).
export {}
