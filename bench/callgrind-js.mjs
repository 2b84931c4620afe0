// Names the JIT code in a callgrind output of a Node process, so that `callgrind_annotate --inclusive=yes`
// can say where a relayed call's instructions go. callgrind knows no JavaScript: code V8 generated has no
// symbol, and callgrind names each of its basic blocks by address (`0x00001f2e…`), one "function" per
// block. V8's perf map (`node --perf-basic-prof`, /tmp/perf-PID.map; `--interpreted-frames-native-stack`
// gives interpreted functions code of their own) says which function each address is in; the bundle's
// source maps say where in src/ that function is. This rewrites every block's name to its function's
// (`#send src/gateway/call-relay.ts:230`), so that a function's blocks add up to one entry, and empties
// the "calls" a function makes to itself (a jump between two of its blocks, which callgrind counts as a
// call), so that inclusive costs are not counted twice. V8's builtins and runtime, Node's C++, libuv and
// libc keep their symbols.
//
//   node bench/callgrind-js.mjs OUT.callgrind OUT.map [--root=.] [--top=40] [--calls=N]
//
// Writes OUT.js.callgrind (read it with `callgrind_annotate --inclusive=yes OUT.js.callgrind`) and prints
// the instructions by area (the src/ folder of the JavaScript, V8's builtins, its collector, the rest of
// Node) and the functions with the most, self and inclusive. bench/gateway-instructions.mjs --keep=DIR
// writes the two inputs.
import { readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [file, mapFile] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const root = resolve(arg('root', '.'));
const top = Number(arg('top', '40'));

// ---------------------------------------------------------------- the perf map

const entries = readFileSync(mapFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line, index) => {
    const [start, size] = line.split(' ', 2);
    return {
      start: parseInt(start, 16),
      end: parseInt(start, 16) + parseInt(size, 16),
      name: line.slice(start.length + size.length + 2),
      index,
    };
  })
  .sort((a, b) => a.start - b.start || a.index - b.index);

/** The newest perf-map entry holding `address`. */
function entryAt(address) {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entries[mid].start <= address) lo = mid;
    else hi = mid - 1;
  }
  let best;
  for (let i = lo; i >= 0 && i > lo - 64; i--) {
    const e = entries[i];
    if (e.start <= address && address < e.end && (!best || e.index > best.index)) best = e;
  }
  return best;
}

// ---------------------------------------------------------------- source maps

const maps = new Map();
function sourceMap(path) {
  if (!maps.has(path)) {
    let map;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(path, map);
  }
  return maps.get(path);
}

/** `name where`, where is src/…:line for the bundle's code, node:… for Node's own. */
function jsName(perfName) {
  // `JS:*name file:///…/dist/x.js:12:5`, `JS:~name node:internal/…:3:4`; a builtin is `Builtin:Name`.
  const m = /^(?:JS|LazyCompile|Function|Script):[*~^+-]?(.*?) ?(\S+):(\d+):(\d+)$/.exec(perfName);
  if (!m) return perfName;
  const [, fn, url, line, column] = m;
  const name = fn || '(anonymous)';
  if (url.startsWith('file://')) {
    const path = fileURLToPath(url);
    const map = path.includes('/dist/') ? sourceMap(path) : undefined;
    const found = map?.findEntry(Number(line) - 1, Number(column) - 1);
    if (found && found.originalSource) {
      const src = found.originalSource.startsWith('file://')
        ? fileURLToPath(found.originalSource)
        : resolve(path, '..', found.originalSource);
      return `${name} ${relative(root, src)}:${found.originalLine + 1}`;
    }
    return `${name} ${relative(root, path)}:${line}`;
  }
  return `${name} ${url}:${line}`;
}

// ---------------------------------------------------------------- the rewrite

const names = new Map(); // "(id)" of fn/cfn → name
const resolved = new Map(); // raw name → rewritten
function rewrite(raw) {
  if (!resolved.has(raw)) {
    let out = raw;
    const m = /^0x([0-9a-f]+)$/.exec(raw);
    if (m) {
      const entry = entryAt(parseInt(m[1], 16));
      out = entry ? jsName(entry.name) : '(JIT code, unnamed)';
    }
    resolved.set(raw, out);
  }
  return resolved.get(raw);
}
/** `(id) name`, `(id)` or `name`: the definition rewritten, and the name it stands for. */
function define(value) {
  const m = /^(\(\d+\))(?: (.*))?$/.exec(value);
  if (!m) {
    const name = rewrite(value);
    return { text: name, name };
  }
  const [, id, raw] = m;
  if (raw !== undefined) names.set(id, rewrite(raw));
  const name = names.get(id);
  return { text: raw === undefined ? id : `${id} ${name}`, name };
}

const lines = readFileSync(file, 'utf8').split('\n');
const out = [];
let fn;
let cfn;
let skipCost = false;
let pendingCall = false;
/** Per function: self instructions, and the instructions of the calls it makes to others. */
const self = new Map();
const calls = new Map(); // caller → Map(callee → inclusive)
const counts = new Map(); // `caller\0callee` → how many calls
let events = 1;
for (const line of lines) {
  if (skipCost) {
    // The cost line of a call a function makes to itself: its position kept (later lines are relative
    // to it), its cost emptied.
    const [position] = line.split(' ', 1);
    out.push(`${position} ${Array(events).fill(0).join(' ')}`);
    skipCost = false;
    continue;
  }
  if (line.startsWith('events:')) events = line.slice(7).trim().split(/\s+/).length;
  if (line.startsWith('fn=')) {
    const d = define(line.slice(3));
    fn = d.name;
    out.push(`fn=${d.text}`);
    continue;
  }
  if (line.startsWith('cfn=')) {
    const d = define(line.slice(4));
    cfn = d.name;
    out.push(`cfn=${d.text}`);
    continue;
  }
  if (line.startsWith('calls=')) {
    out.push(line);
    if (cfn === fn) skipCost = true;
    else {
      pendingCall = true;
      const key = `${fn}\u0000${cfn}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(6).split(' ')[0]));
    }
    continue;
  }
  if (/^[0-9+\-*]/.test(line)) {
    const fields = line.split(' ');
    const ir = Number(fields[fields.length - events]);
    if (pendingCall) {
      let to = calls.get(fn);
      if (!to) calls.set(fn, (to = new Map()));
      to.set(cfn, (to.get(cfn) ?? 0) + ir);
      pendingCall = false;
    } else {
      self.set(fn, (self.get(fn) ?? 0) + ir);
    }
  }
  out.push(line);
}
const target = file.replace(/(\.callgrind)?$/, '.js.callgrind');
writeFileSync(target, out.join('\n'));

// ---------------------------------------------------------------- the summary

const total = [...self.values()].reduce((a, b) => a + b, 0);
const inclusive = new Map();
for (const [name, cost] of self) {
  let sum = cost;
  for (const ir of calls.get(name)?.values() ?? []) sum += ir;
  inclusive.set(name, sum);
}
/** Where a function's code is: its src/ folder, Node's JavaScript, V8's builtins, its collector, Node's C++ … */
function area(name) {
  const where = name.split(' ').at(-1);
  let m = /^src\/([^/]+)(?:\/([^/]+))?\//.exec(where);
  if (m) return m[1] === 'protocol' && m[2] === 'engine' ? 'src/protocol/engine' : `src/${m[1]}`;
  if (where.startsWith('node:')) return 'node: (JavaScript)';
  if (/Scaveng|MarkCompact|Heap::|Sweeper|Evacuat|GCTracer|MemoryAllocator|ConcurrentMark|Marking/.test(name))
    return 'V8 garbage collector';
  if (/^Builtins_|^Builtin:/.test(name)) return 'V8 builtins';
  if (/^v8::internal::|^v8::/.test(name)) return 'V8 runtime (C++)';
  if (/^uv_|^uv__/.test(name)) return 'libuv';
  if (/^node::/.test(name)) return 'Node C++';
  m = /\bnode_modules\/|^\(JIT/.exec(name);
  if (m) return 'other JavaScript';
  if (/^BytecodeHandler|^Stub:|^RegExp/.test(name)) return 'V8 interpreter, stubs, regexps';
  return 'libc, other native';
}

const callers = new Map(); // callee → Map(caller → inclusive)
for (const [caller, to] of calls)
  for (const [callee, ir] of to) {
    let from = callers.get(callee);
    if (!from) callers.set(callee, (from = new Map()));
    from.set(caller, (from.get(caller) ?? 0) + ir);
  }

const calls_ = Number(arg('calls', '0'));
const pct = (n) => `${((100 * n) / total).toFixed(1)}%`;
const per = (n) =>
  calls_
    ? `  ${Math.round(n / calls_)
        .toLocaleString('en-US')
        .padStart(7)}/call`
    : '';
console.log(`${file}: ${total.toLocaleString('en-US')} instructions (self, all functions)${per(total)}`);
console.log('\nself instructions by area:');
for (const [name, cost] of [...byArea()].sort((a, b) => b[1] - a[1]))
  console.log(`  ${pct(cost).padStart(6)}${per(cost)}  ${name}`);
console.log(`\ntop ${top} functions, self:`);
for (const [name, cost] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`  ${pct(cost).padStart(6)}${per(cost)}  ${name}`);
console.log(
  `\ntop ${top} JavaScript functions of src/, inclusive (a cycle through callbacks can count twice):`,
);
for (const [name, cost] of [...inclusive]
  .filter(([name]) => / src\//.test(name))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${pct(cost).padStart(6)}${per(cost)}  ${name}`);
console.log(`\nwritten: ${target} (callgrind_annotate --inclusive=yes ${target})`);

function byArea() {
  const out = new Map();
  for (const [name, cost] of self) out.set(area(name), (out.get(area(name)) ?? 0) + cost);
  return out;
}

// `--who=REGEX`: the callers and callees of the functions whose names match, with what each call cost.
const who = arg('who', undefined);
const count = (from, to) => {
  const n = counts.get(`${from}\u0000${to}`) ?? 0;
  return calls_ ? `${(n / calls_).toFixed(2)} times a call` : `${n} times`;
};
if (who) {
  const re = new RegExp(who);
  for (const name of [...self.keys()].filter((n) => re.test(n)).slice(0, 5)) {
    console.log(`\n${name}: self ${per(self.get(name))}, inclusive ${per(inclusive.get(name))}`);
    for (const [caller, ir] of [...(callers.get(name) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 8))
      console.log(`  called by ${per(ir)}  ${caller} (${count(caller, name)})`);
    for (const [callee, ir] of [...(calls.get(name) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 12))
      console.log(`  calls     ${per(ir)}  ${callee} (${count(name, callee)})`);
  }
}
