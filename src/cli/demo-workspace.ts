/**
 * Where `toolwire gateway --demo` (what `npm start` runs) roots its demo server: `$TOOLWIRE_DEMO_ROOT` when
 * set, else a fresh folder made now under the system's temporary directory (`toolwire-demo-XXXXXX`, with a
 * README.md saying what it is), which the gateway prints. Not the current directory: for `npm start` that is
 * a clone of toolwire, and the demo's `write_file` wrote into it once a person approved.
 * @module
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The demo's root, and whether it is a folder made for this run (not one `TOOLWIRE_DEMO_ROOT` named). */
export interface DemoWorkspace {
  root: string;
  fresh: boolean;
}

const WELCOME = `# toolwire demo workspace

A folder made for one run of \`toolwire gateway --demo\` (\`npm start\`): the demo server's tools
(list_files, read_file, search_files, write_file, workspace_info) read and write here, and nowhere
else. Set TOOLWIRE_DEMO_ROOT to serve another folder.
`;

/** The demo's root: `$TOOLWIRE_DEMO_ROOT` (made absolute), else a fresh folder under `os.tmpdir()`. */
export function demoWorkspace(env: NodeJS.ProcessEnv = process.env): DemoWorkspace {
  const given = env.TOOLWIRE_DEMO_ROOT;
  if (given !== undefined && given !== '') return { root: path.resolve(given), fresh: false };
  const root = mkdtempSync(path.join(tmpdir(), 'toolwire-demo-'));
  writeFileSync(path.join(root, 'README.md'), WELCOME);
  return { root, fresh: true };
}
