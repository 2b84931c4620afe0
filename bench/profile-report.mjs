// Prints the functions with the most self time, and the heaviest files, of the one `.cpuprofile` in a
// folder (what `node --cpu-prof --cpu-prof-dir=<dir>` wrote). Shared by profile.mjs and profile-http.mjs.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function printProfile(dir) {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const total = profile.samples.length;
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    const where = f.url
      ? `${f.url.replace(/^file:\/\/\/work\/main\//, '').replace(/^file:\/\//, '')}:${f.lineNumber + 1}`
      : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const byFile = new Map();
  for (const [key, count] of self) {
    const name = key.split(' ')[1]?.replace(/:\d+$/, '') || key.split(' ')[0];
    byFile.set(name, (byFile.get(name) ?? 0) + count);
  }
  const pct = (n) => `${((n / total) * 100).toFixed(1).padStart(5)}%`;
  console.log(`\ntop self time (${total} samples), profile: ${join(dir, file)}`);
  for (const [key, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${pct(count)}  ${key}`);
  console.log('\nby file:');
  for (const [key, count] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`${pct(count)}  ${key}`);
}
