#!/usr/bin/env node
// A real Chromium for the console's browser tests (playwright-core drives it; Playwright's own browser
// download is not used). `provisionChromium()` finds a system Chromium (`chromium`, `chromium-browser`,
// `google-chrome`… on PATH or in the usual directories, or CHROMIUM_PATH); when there is none and this is
// root on Debian or Ubuntu (as on CI) it runs `apt-get install chromium` (after `apt-get update` when the
// package lists are missing; scripts/system-package.mjs, shared with scripts/redis.mjs); anything else fails
// with one line saying what to install. The tests' global setup calls it once per run, so `npm test` on a
// fresh machine needs nothing else. `CHROMIUM_FLAGS` are the flags every test browser starts with.
// `node scripts/chromium.mjs` provisions and prints the binary's path.
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findProgram, provisionProgram } from './system-package.mjs';

const INSTALL_HINT =
  'the console tests need a Chromium: install one (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask chromium) or set CHROMIUM_PATH';

/** Headless, no sandbox (root in a container), nothing fetched from the network, a quiet first run. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium named by CHROMIUM_PATH, else one on PATH or in the usual directories, or undefined. */
export function findChromium() {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    try {
      accessSync(given, constants.X_OK);
      return given;
    } catch {
      return undefined;
    }
  }
  return findProgram(['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']);
}

/** The path of a Chromium, installed with apt-get where this process may; throws with one line otherwise. */
export function provisionChromium({ log = () => {} } = {}) {
  return provisionProgram({ find: findChromium, pkg: 'chromium', hint: INSTALL_HINT, log });
}

if (process.argv[1] === fileURLToPath(new URL(import.meta.url))) {
  try {
    console.log(provisionChromium({ log: (line) => console.error(`chromium: ${line}`) }));
  } catch (error) {
    console.error(`chromium: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
