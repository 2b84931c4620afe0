// What one idle stateful HTTP session holds, by name (issue 20's memory target): a heap snapshot after a
// first batch of sessions and another after `--sessions` more (each after a full garbage collection), of
// `toolwire serve bench/fixture-server.mjs --http --json` (`--sse`: without `--json`) with Redis stores (a throwaway redis-server) or
// memory stores (`--memory`). The difference, per session, by node: closures by name and source location,
// closure contexts by the closures made in them, plain objects by their keys, objects by constructor, and
// strings, arrays and the like by what holds them (its label and edge name).
//
//   npm run build && node bench/heap-sessions.mjs [--sessions 2000] [--warm 1000] [--memory] [--sse] [--top 40]
//     [--idle 500]   (ms idle before the second snapshot; with Redis stores, past 10 s the copies are unloaded)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { provisionRedisServer, startRedisServer } from '../scripts/redis.mjs';
import { HttpPool } from './http-pool.mjs';
import { httpSession, rssKb, spawnHttp } from './load.mjs';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '1000' },
    top: { type: 'string', default: '40' },
    memory: { type: 'boolean', default: false },
    sse: { type: 'boolean', default: false },
    // How long the sessions stay idle before the second snapshot: past twice `sessionUnloadMs` (5 s), Redis
    // stores hold no copy of them (`--idle 11000`); the default shows what a loaded copy holds.
    idle: { type: 'string', default: '500' },
  },
});
const SESSIONS = Number(args.sessions);

/** Opens `count` sessions, 16 at a time, on keep-alive connections of their own, and leaves them idle. */
async function openSessions(url, count) {
  // Fresh connections: the server closes idle ones after a few seconds (while a snapshot is read here).
  const pool = new HttpPool(url, 16);
  let opened = 0;
  const worker = async () => {
    while (opened < count) {
      opened++;
      await httpSession(pool);
    }
  };
  try {
    await Promise.all(Array.from({ length: 16 }, worker));
  } finally {
    pool.destroy();
  }
}

/** A heap snapshot of `pid` (SIGUSR2), parsed. */
async function snapshot(pid, dir) {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let tries = 0; tries < 600; tries++) {
    await sleep(100);
    const file = readdirSync(dir).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (!file) continue;
    try {
      const parsed = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      rmSync(join(dir, file));
      return parsed;
    } catch {
      // not whole yet
    }
  }
  throw new Error(`no heap snapshot in ${dir} after 60 s`);
}

/** Count and bytes by label: what each node is, named as precisely as the snapshot allows. */
function labelled(parsed) {
  const { snapshot: meta, nodes, edges, strings, locations } = parsed;
  const nf = meta.meta.node_fields;
  const ef = meta.meta.edge_fields;
  const nodeTypes = meta.meta.node_types[0];
  const edgeTypes = meta.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const [TYPE, NAME, SIZE, EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
  const count = nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * N + EDGES] * E;
  }
  firstEdge[count] = edges.length;
  const type = (i) => nodeTypes[nodes[i * N + TYPE]];
  const name = (i) => strings[nodes[i * N + NAME]];
  const edgeName = (e) =>
    ['element', 'hidden'].includes(edgeTypes[edges[e + ETYPE]])
      ? `[${edges[e + ENAME]}]`
      : strings[edges[e + ENAME]];
  // The first retainer of each node (by a non-weak edge).
  const retainer = new Int32Array(count).fill(-1);
  const retainerEdge = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E) {
      const kind = edgeTypes[edges[e + ETYPE]];
      if (kind === 'weak' || kind === 'shortcut') continue;
      const to = edges[e + ETO] / N;
      if (retainer[to] === -1) {
        retainer[to] = i;
        retainerEdge[to] = e;
      }
    }
  }
  const edgeTo = (i, wanted) => {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E)
      if (strings[edges[e + ENAME]] === wanted && edgeTypes[edges[e + ETYPE]] !== 'element')
        return edges[e + ETO] / N;
    return -1;
  };
  // Script names, for closure locations: closure → shared → its script (named by its URL).
  const where = new Map();
  for (let l = 0; l < locations.length; l += 4) {
    const i = locations[l] / N;
    where.set(i, [locations[l + 2] + 1, locations[l + 3] + 1]);
  }
  const scriptOf = (closure) => {
    const shared = edgeTo(closure, 'shared');
    const script = shared === -1 ? -1 : edgeTo(shared, 'script_or_debug_info');
    const file = script === -1 ? '?' : name(script);
    return file.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^file:\/\//, '');
  };
  const closureLabel = (i) => {
    const at = where.get(i);
    return `closure ${name(i) || '(anonymous)'} @${scriptOf(i)}${at ? `:${at[0]}:${at[1]}` : ''}`;
  };
  // Contexts by the closures made in them.
  const contextOf = new Map();
  for (let i = 0; i < count; i++) {
    if (type(i) !== 'closure') continue;
    const context = edgeTo(i, 'context');
    if (context === -1) continue;
    const list = contextOf.get(context) ?? [];
    if (list.length < 3) list.push(`${name(i) || '(anonymous)'}:${where.get(i)?.[0] ?? '?'}`);
    contextOf.set(context, list);
  }
  const keysOf = (i) => {
    const keys = [];
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E)
      if (edgeTypes[edges[e + ETYPE]] === 'property') keys.push(strings[edges[e + ENAME]]);
    return keys.slice(0, 8).join(',');
  };
  const shortLabel = (i, depth = 0) => {
    const t = type(i);
    if (t === 'closure') return closureLabel(i);
    if (t === 'object') return name(i) === 'Object' ? `Object {${keysOf(i)}}` : `${name(i)}`;
    if (name(i) === 'system / Context' && contextOf.has(i)) return `Context of ${contextOf.get(i).join(' ')}`;
    if (name(i) === 'system / Context' && retainer[i] !== -1 && depth < 3)
      return `Context <- ${shortLabel(retainer[i], depth + 1)} .${edgeName(retainerEdge[i])}`;
    if (depth < 2 && retainer[i] !== -1) {
      return `${t} ${name(i).slice(0, 30)} <- ${shortLabel(retainer[i], depth + 1)} .${edgeName(retainerEdge[i])}`;
    }
    return `${t} ${name(i).slice(0, 30)}`;
  };
  const isString = (i) => type(i).endsWith('string');
  const kinds = new Map();
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const size = nodes[i * N + SIZE];
    bytes += size;
    const t = type(i);
    let label;
    if (isString(i)) {
      // A string's label: the first holder past the strings it is part of (cons strings' halves).
      let holder = i;
      let depth = 0;
      while (retainer[holder] !== -1 && isString(retainer[holder]) && depth++ < 50) holder = retainer[holder];
      const by = retainer[holder];
      label = `${t}${holder === i ? '' : ' (part)'} <- ${by === -1 ? '?' : `${shortLabel(by, 1)} .${edgeName(retainerEdge[holder])}`}`;
    } else label = shortLabel(i);
    const entry = kinds.get(label) ?? [0, 0];
    entry[0]++;
    entry[1] += size;
    kinds.set(label, entry);
  }
  return { bytes, kinds };
}

const redis = args.memory ? undefined : await startRedisServer(provisionRedisServer());
const dir = mkdtempSync(join(os.tmpdir(), 'toolwire-heap-sessions-'));
const server = await spawnHttp(process.execPath, [
  '--heapsnapshot-signal=SIGUSR2',
  `--diagnostic-dir=${dir}`,
  'bin/toolwire.mjs',
  'serve',
  'bench/fixture-server.mjs',
  '--http',
  '--port',
  '0',
  ...(args.sse ? [] : ['--json']),
  ...(redis ? ['--redis', redis.url] : []),
]);
try {
  await openSessions(server.url, Number(args.warm));
  await sleep(500);
  const rss0 = rssKb(server.pid);
  const a = labelled(await snapshot(server.pid, dir));
  await openSessions(server.url, SESSIONS);
  await sleep(Number(args.idle));
  const rss1 = rssKb(server.pid);
  const b = labelled(await snapshot(server.pid, dir));
  const rows = [...b.kinds]
    .map(([label, [n, bytes]]) => {
      const [n0, bytes0] = a.kinds.get(label) ?? [0, 0];
      return { label, count: (n - n0) / SESSIONS, bytes: (bytes - bytes0) / SESSIONS };
    })
    .filter((r) => Math.abs(r.bytes) >= 4)
    .sort((x, y) => y.bytes - x.bytes);
  console.log(
    `${redis ? 'Redis' : 'memory'} stores, ${SESSIONS} sessions: live heap ${((b.bytes - a.bytes) / SESSIONS).toFixed(0)} B/session` +
      ` (RSS ${(((rss1 - rss0) * 1024) / SESSIONS).toFixed(0)} B/session, snapshot included)`,
  );
  let shown = 0;
  for (const r of rows.slice(0, Number(args.top))) {
    shown += r.bytes;
    console.log(`${r.bytes.toFixed(0).padStart(6)} B ${r.count.toFixed(2).padStart(6)}×  ${r.label}`);
  }
  console.log(`${shown.toFixed(0).padStart(6)} B shown of ${((b.bytes - a.bytes) / SESSIONS).toFixed(0)}`);
} finally {
  await server.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
}
