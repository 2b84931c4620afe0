// `node --import` for the MCP conformance suite's process on a Node without `fs.globSync` (before 22):
// registers glob-sync-hooks.mjs, which gives the suite's `import { globSync } from 'fs'` an `fs` that has it.
// scripts/conformance.mjs adds it only where `fs.globSync` is missing; everything else the suite uses
// is in Node 20 (its dependencies ask for Node >= 20.18.1).
import { register } from 'node:module';

register('./glob-sync-hooks.mjs', import.meta.url);
