// Preloaded into a process (`node --import ./bench/alloc-preload.mjs …`) to measure what it allocates: the
// first SIGUSR2 starts V8's sampling heap profiler (objects collected by either GC included), the second
// stops it and writes the estimated bytes allocated in between to the file named by ALLOC_OUT. Used by
// bench/gateway-ab.mjs (allocation per call: the measure that does not move with the host's load).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  sampling = false;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    let bytes = 0;
    const walk = (node) => {
      bytes += node.selfSize;
      for (const child of node.children) walk(child);
    };
    if (!error) walk(result.profile.head);
    writeFileSync(process.env.ALLOC_OUT, error ? `error ${error.message}` : String(bytes));
    if (!error && process.env.ALLOC_PROFILE)
      writeFileSync(process.env.ALLOC_PROFILE, JSON.stringify(result.profile));
  });
});
