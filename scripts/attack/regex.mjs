// Regex and schema attacks on argument validation: strings that make backtracking patterns explode
// (in `pattern`, `patternProperties` and `propertyNames`), uniqueItems over large arrays, arguments nested
// 100,000 deep through a recursive $ref, JSON nested a million deep, strings of megabytes. Each call gets
// its answer (the handler's, or an isError result naming the argument) quickly, and nobody else waits.
import { EVIL_PATTERNS } from './fixtures/evil-patterns.mjs';
import { callAttack } from './lib/call-attack.mjs';
import { post } from './lib/http.mjs';
import { StdioPeer } from './lib/stdio-peer.mjs';

const evil = (n) => `${'a'.repeat(n)}!`;

export default [
  callAttack(
    'patterns',
    'catastrophic `pattern`s in inputSchema against strings built to backtrack',
    (quick) =>
      EVIL_PATTERNS.flatMap((pattern, i) => [
        {
          what: `${pattern} on "a"x30`,
          tool: `pattern_${i}`,
          args: { value: 'a'.repeat(30) },
          expect: pattern.includes('\\w') || pattern.includes('.*') ? 'any' : 'ok',
        },
        ...(quick ? [28, 1000] : [20, 25, 28, 32, 40, 1000, 100_000]).map((n) => ({
          what: `${pattern} on "a"x${n}+"!"`,
          tool: `pattern_${i}`,
          args: { value: pattern.includes('\\w') ? `${'a '.repeat(n / 2)}!` : evil(n) },
          expect: 'invalid',
        })),
      ]),
  ),
  callAttack(
    'pattern-keys',
    'backtracking patterns in patternProperties and propertyNames, on many long keys',
    (quick) =>
      (quick ? [30, 1000] : [25, 30, 40, 1000]).map((n) => ({
        what: `${quick ? 10 : 100} keys "a"x${n}+"!"`,
        tool: 'pattern_keys',
        args: Object.fromEntries(Array.from({ length: quick ? 10 : 100 }, (_, k) => [`${evil(n)}${k}`, 'v'])),
        expect: 'invalid',
      })),
  ),
  callAttack('unique-items', 'uniqueItems over 2,000 to 100,000 distinct objects and strings', (quick) =>
    (quick ? [2000, 20_000] : [2000, 20_000, 50_000, 100_000]).flatMap((n) => [
      {
        what: `${n} distinct objects`,
        tool: 'unique',
        args: { items: Array.from({ length: n }, (_, i) => ({ k: i })) },
        expect: 'ok',
      },
      {
        what: `${n} distinct strings`,
        tool: 'unique',
        args: { items: Array.from({ length: n }, (_, i) => `s${i}`) },
        expect: 'ok',
      },
      {
        what: `${n} objects, the last two equal`,
        tool: 'unique',
        args: { items: [...Array.from({ length: n }, (_, i) => ({ k: i })), { k: 0 }] },
        expect: 'invalid',
      },
    ]),
  ),
  callAttack(
    'deep-arguments',
    'arguments nested 1,000 to 100,000 deep through a recursive $ref, and in a string-typed slot',
    (quick) => {
      const nest = (depth) => `{"root":${'{"child":'.repeat(depth)}{}${'}'.repeat(depth)}}`;
      const array = (depth) => `{"text":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      return (quick ? [1000, 50_000] : [1000, 10_000, 50_000, 100_000]).flatMap((depth) => [
        { what: `a tree ${depth} deep`, tool: 'tree', args: nest(depth), expect: 'any' },
        { what: `arrays ${depth} deep as echo's text`, tool: 'echo', args: array(depth), expect: 'invalid' },
      ]);
    },
  ),
  callAttack('huge-strings', 'strings of 1 to 3.9 MB: over a maxLength of 10, and echoed back', (quick) =>
    (quick ? [1 << 20] : [1 << 20, 3_900_000]).flatMap((n) => [
      {
        what: `${n} characters for maxLength 10`,
        tool: 'long',
        args: { value: '\u00e9'.repeat(n / 2) },
        expect: 'invalid',
      },
      { what: `${n} characters echoed`, tool: 'echo', args: { text: 'q'.repeat(n) }, expect: 'ok' },
    ]),
  ),
  {
    name: 'deep-json',
    title: 'JSON nested a million deep (4 MB of "[") and unterminated, on stdio and as a POST body',
    target: { transport: 'stdio' },
    async run(ctx) {
      const peer = new StdioPeer(ctx.target.child);
      await peer.initialize();
      const depths = ctx.quick ? [100_000] : [10_000, 100_000, 1_000_000];
      for (const depth of depths) {
        for (const body of [
          `${'['.repeat(depth)}${']'.repeat(depth)}`,
          '['.repeat(depth),
          `{"jsonrpc":"2.0","id":"d","method":"ping","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
        ]) {
          ctx.tries += 2;
          if (body.length > 4 * 1024 * 1024) continue;
          await peer.write(`${body}\n`);
          await peer
            .request('ping', undefined, 20_000)
            .catch((error) => ctx.fail(`stdio after ${depth} deep: ${error.message}`));
          const res = await post(ctx.target.url, body).catch((error) => ({ status: error.message }));
          ctx.check(
            typeof res.status === 'number' && res.status < 500,
            `a POST nested ${depth} deep: ${res.status}`,
          );
        }
      }
      ctx.check(peer.garbage.length === 0, `not JSON on stdout: ${peer.garbage.join(' | ').slice(0, 200)}`);
    },
  },
];
