// Attacks on the gateway: `toolwire gateway --stdio` (from dist/) in front of a hostile upstream
// (fixtures/hostile-server.mjs: validator-bait outputSchemas, 64 MiB, 100,000-deep and endless answers,
// 100,000 log notifications, answers to ids nobody sent) and of a well-behaved one (bench/fixture-server.mjs). The
// gateway is the attacked process: the bystander is a second caller on the same connection calling the
// well-behaved upstream's `echo` while each hostile call runs, and what it waited past its own baseline is
// what any caller of the gateway would have waited. Each hostile call must end in a clear answer (an
// `isError` result naming the reason, or the upstream's answer) and the gateway must stay up.
import path from 'node:path';
import { rssKb, StdioPeer } from '../../bench/load.mjs';
import { EVIL_PATTERNS } from './fixtures/evil-patterns.mjs';
import { BIN, ROOT } from './lib/target.mjs';

const HOSTILE = path.join(ROOT, 'scripts', 'attack', 'fixtures', 'hostile-server.mjs');
const FIXTURE = path.join(ROOT, 'bench', 'fixture-server.mjs');

const textOf = (answer) => answer?.result?.content?.[0]?.text;
const isErrorWith = (pattern) => (answer) =>
  answer?.result?.isError === true && pattern.test(textOf(answer) ?? '')
    ? undefined
    : `expected an isError result matching ${pattern}, got ${JSON.stringify(answer)?.slice(0, 160)}`;
const textIs = (text) => (answer) =>
  textOf(answer) === text ? undefined : `expected "${text}", got ${JSON.stringify(answer)?.slice(0, 160)}`;

const CALLS = [
  ...EVIL_PATTERNS.map((pattern, i) => ({
    tool: `h__pattern_${i}`,
    what: `outputSchema pattern ${pattern}`,
    expect: isErrorWith(/does not match its outputSchema/),
  })),
  {
    tool: 'h__pattern_keys',
    what: 'patternProperties and propertyNames',
    expect: isErrorWith(/outputSchema/),
  },
  {
    tool: 'h__unique',
    what: 'uniqueItems over 50,000 objects',
    expect: (answer) =>
      answer?.result?.structuredContent?.items?.length === 50_000 ? undefined : 'no result',
  },
  { tool: 'h__huge', what: 'a 64 MiB answer', expect: isErrorWith(/exceeds the maximum message size/) },
  {
    tool: 'h__deep_answer',
    what: 'an answer nested 100,000 deep',
    expect: isErrorWith(/was refused unparsed: JSON nested deeper than 1024 levels$/),
  },
  {
    tool: 'h__endless',
    what: '32 MiB without a newline, then the answer',
    expect: textIs('after the endless line'),
  },
  {
    tool: 'h__flood',
    what: '100,000 log notifications before the answer',
    expect: textIs('after the flood'),
  },
  { tool: 'h__wrong_id', what: 'answers to ids nobody sent, one id twice', expect: textIs('right id') },
];

export default [
  {
    name: 'hostile-upstream',
    title:
      'the gateway in front of a hostile upstream: validator bait, 64 MiB and endless answers, floods, wrong ids',
    target: false,
    budgetMs: 240_000,
    // The gateway reads, checks (outputSchema), sanitizes and writes each answer whole, in one turn: the
    // 50,000-object result (1.5 MB, 3 MB once its text block is added) holds a caller beside it ≈200–300 ms
    // here. The usual +100 ms bound cannot hold for that; this one still catches a super-linear cost.
    latencyBoundMs: 600,
    async run(ctx) {
      const args = [BIN, 'gateway', '--stdio', '--default', 'allow', '--api-port', '0'];
      const peer = new StdioPeer(process.execPath, [
        ...args,
        '--upstream',
        `fx=${process.execPath} ${BIN} serve ${FIXTURE}`,
        '--upstream',
        'h',
        '--',
        process.execPath,
        HOSTILE,
      ]);
      let peakRss = 0;
      const sample = setInterval(() => {
        try {
          peakRss = Math.max(peakRss, rssKb(peer.pid) / 1024);
        } catch {
          // gone: the checks below say so
        }
      }, 25);
      try {
        await peer.initialize('2025-11-25');
        await peer.request('tools/list', {});
        const echo = async () => {
          const started = performance.now();
          const answer = await peer.request('tools/call', { name: 'fx__echo', arguments: { text: 'hi' } });
          if (textOf(answer) !== 'hi') ctx.fail(`the bystander got ${JSON.stringify(answer)?.slice(0, 120)}`);
          return performance.now() - started;
        };
        const baseline = [];
        for (let i = 0; i < 50; i++) baseline.push(await echo());
        baseline.sort((a, b) => a - b);
        const usual = baseline[25];
        let worst = { ms: 0, what: '' };
        for (let round = 0; round < (ctx.quick ? 1 : 2); round++) {
          for (const spec of CALLS) {
            ctx.tries++;
            let done = false;
            const call = peer.request('tools/call', { name: spec.tool, arguments: {} }).finally(() => {
              done = true;
            });
            while (!done) {
              const waited = (await echo()) - usual;
              if (waited > worst.ms) worst = { ms: waited, what: spec.what };
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
            const problem = spec.expect(await call);
            if (problem) ctx.fail(`${spec.what}: ${problem}`);
          }
        }
        ctx.delayMs = worst.ms;
        ctx.note(
          `a caller beside the attack waited ${worst.ms.toFixed(0)} ms more at most, during: ${worst.what}`,
        );
      } finally {
        clearInterval(sample);
        ctx.peakRssMb = peakRss;
        await peer.close();
      }
    },
  },
  {
    name: 'unsafe-icons',
    title:
      'an upstream tool listed with javascript: and file:// icons: the gateway passes on its data: icon only',
    target: false,
    async run(ctx) {
      const peer = new StdioPeer(process.execPath, [
        BIN,
        'gateway',
        '--stdio',
        '--default',
        'allow',
        '--api-port',
        '0',
        '--upstream',
        'h',
        '--',
        process.execPath,
        HOSTILE,
        '--forging',
      ]);
      try {
        await peer.initialize('2025-11-25');
        ctx.tries++;
        const listed = await peer.request('tools/list', {});
        const tool = listed?.result?.tools?.find((t) => t.name === 'h__icons');
        const srcs = tool?.icons?.map((icon) => icon.src) ?? [];
        ctx.check(
          tool !== undefined && srcs.length === 1 && srcs[0]?.startsWith('data:'),
          () => `the gateway listed h__icons with ${JSON.stringify(srcs)}`,
        );
      } finally {
        await peer.close();
      }
    },
  },
];
