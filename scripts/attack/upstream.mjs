// Attacks on the gateway from behind it: `toolwire gateway --stdio` (from dist/, its own process) in front
// of a hostile upstream (fixtures/hostile-upstream.mjs over stdio, or a loopback HTTP server: upstream/redirects.mjs)
// and of a well-behaved one (bench/fixture-server.mjs). The bystander is a second caller on the gateway's
// connection calling the well-behaved upstream's `echo` throughout; what it waited past its own baseline is
// what any caller of the gateway would have waited. Each attack checks what the gateway did about the
// upstream (its listing cut, its restarts spaced, its redirect followed without a key of the gateway's, its
// endless tasks cut at maxCallMs, its silence cut at 30 s) and that the gateway stayed up, within its
// memory.
// The attacks sit in scripts/attack/upstream/, a file per group (the gateway they run:
// lib/upstream-gateway.mjs); this family lists them, in order, as upstream/<name>.
import calls from './upstream/calls.mjs';
import connecting from './upstream/connecting.mjs';
import listing from './upstream/listing.mjs';
import redirects from './upstream/redirects.mjs';

export default [...listing, ...connecting, ...redirects, ...calls];
