// Preloaded into a process that has no `memory` tool of its own (`node --import ./bench/memory-preload.mjs
// bin/toolwire.mjs gateway …`): on SIGUSR2 it collects garbage and writes `process.memoryUsage()` as JSON to
// the file named by MEMORY_OUT. Used by the soak's `gateway` mode (bench/soak.mjs).
import { renameSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const out = process.env.MEMORY_OUT;
if (out) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  process.on('SIGUSR2', () => {
    gc();
    writeFileSync(`${out}.part`, JSON.stringify(process.memoryUsage()));
    renameSync(`${out}.part`, out); // whole, or not there yet
  });
}
