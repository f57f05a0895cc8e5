// The UDP adapter (issue 3) lands here; imported as `@sd/transport/udp` so the core stays free of node:dgram.
export {}
