// Vitest's global setup for the console's browser tests: finds a system Chromium, or installs one where it
// may (root on Debian/Ubuntu, as on CI; scripts/chromium.mjs), once per run, before any test file starts.
// The outcome reaches the test files through `inject('chromium')`: the binary's path, or the one line
// saying what to install, which test/_console.ts fails the browser tests with (they are never skipped).
import type { TestProject } from 'vitest/node';
import { provisionChromium } from '../scripts/chromium.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: { binary: string } | { error: string };
  }
}

export default function setup(project: TestProject): void {
  const started = Date.now();
  let installed = false;
  try {
    const binary = provisionChromium({
      log: (line) => {
        installed = true;
        process.stdout.write(`test setup: ${line} …\n`);
      },
    });
    if (installed)
      process.stdout.write(`test setup: chromium ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    project.provide('chromium', { binary });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`test setup: ${message}\n`);
    project.provide('chromium', { error: message });
  }
}
