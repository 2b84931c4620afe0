// What `toolwire` shows a person on a terminal: a server's text that tries to steer the terminal (escape
// sequences, a carriage return, bidirectional overrides) is printed as escapes; and a server's questions
// (elicitation forms and pages to open) are asked there, field by field, in both eras.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { terminalApprover } from '../src/cli/terminal-approver.js';
import { terminalElicitation } from '../src/cli/terminal-elicitation.js';
import { showLines } from '../src/cli/open-target.js';
import { terminalText } from '../src/cli/terminal-text.js';
import { Client } from '../src/client/index.js';
import type { Revision } from '../src/protocol/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { BIN, REPO, runCli } from './_cli.js';
import { fakeTerminal } from './_terminal.js';

const FIXTURE = 'test/fixtures/terminal-server.mjs';
const SERVE = ['--', process.execPath, BIN, 'serve', FIXTURE];
const ESC = '\u001b';
const OVERWRITE = `${ESC}[1A${ESC}[2K\rreadOnlyHint: true`;
const SHOWN_OVERWRITE = '\\x1b[1A\\x1b[2K\\x0dreadOnlyHint: true';

describe('terminalText', () => {
  it('writes out every character that steers a terminal, and keeps newlines, tabs and the rest', () => {
    expect(terminalText(`a${ESC}[2Jb\u0007c\u009bd\u007fe`)).toBe('a\\x1b[2Jb\\x07c\\x9bd\\x7fe');
    expect(terminalText('x\u202etxt.exe\u2066y\u200f')).toBe('x\\u202etxt.exe\\u2066y\\u200f');
    expect(terminalText('one\r\ntwo\rthree\n\tfour é ✓ 日本')).toBe('one\ntwo\\x0dthree\n\tfour é ✓ 日本');
    const big = `${ESC}x`.repeat(500_000);
    expect(terminalText(big)).toHaveLength(5 * 500_000);
  });
});

describe('a server that tries to steer the terminal', () => {
  it('piped, stdout keeps its text as sent; stderr (for a person) is always written out', async () => {
    const listed = await runCli(['tools', ...SERVE]);
    expect(listed.code).toBe(0);
    // A listing's line is one line piped too: its carriage return is written out, the rest kept as sent.
    expect(listed.stdout).toContain(`Shows a note.${OVERWRITE.replace('\r', '\\x0d')}`);
    const refused = await runCli(['call', '--tool', 'refuse', ...SERVE]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`refused${SHOWN_OVERWRITE}`);
    expect(refused.stderr).not.toContain(ESC);
  });

  it("keeps a progress message's line breaks on its progress line", async () => {
    const run = await runCli(['call', '--tool', 'progress', '--progress', ...SERVE]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'progress: 1/2 half\\ntoolwire: the server is verified by the administrator\n',
    );
    expect(run.stderr).not.toMatch(/^toolwire: the server is verified/m);
  });

  // `script` (util-linux, essential on Debian) runs the command on a pseudo-terminal.
  it.runIf(existsSync('/usr/bin/script'))('on a terminal, stdout writes it out too', async () => {
    const command = [process.execPath, BIN, 'call', '--tool', 'steer', '--yes', 'note=hi', ...SERVE];
    const shown = await new Promise<string>((resolve, reject) =>
      execFile(
        'script',
        ['-qec', command.join(' '), '/dev/null'],
        { cwd: REPO, timeout: 30_000 },
        (e, out) => (e ? reject(new Error(`script failed: ${e.message}`)) : resolve(out)),
      ),
    );
    expect(shown).toContain('note: hi\\x1b]52;c;cm0gLXJmIH4=\\x07 \\u202etxt.exe');
    expect(shown).not.toContain(ESC);
    expect(shown).not.toContain('\u202e');
  });

  it.runIf(existsSync('/usr/bin/script'))(
    "with -v, the server's stderr is written out on a terminal",
    async () => {
      const command = [process.execPath, BIN, 'call', '-v', '--tool', 'log', ...SERVE];
      const shown = await new Promise<string>((resolve, reject) =>
        execFile(
          'script',
          ['-qec', command.join(' '), '/dev/null'],
          { cwd: REPO, timeout: 30_000 },
          (e, out) => (e ? reject(new Error(`script failed: ${e.message}`)) : resolve(out)),
        ),
      );
      expect(shown).toContain('log: \\x1b]0;X\\x07\\x1b[2J\\x1b[Hfake prompt> \\u202etxt.exe\r\n');
      expect(shown).toContain('logged');
      expect(shown).not.toContain(ESC);
      expect(shown).not.toContain('\u202e');
    },
  );

  it("with -v, the server's stderr is written out when piped too, and its last lines still come with a failure", async () => {
    const logged = await runCli(['call', '-v', '--tool', 'log', ...SERVE]);
    expect(logged.code).toBe(0);
    expect(logged.stderr).toContain('log: \\x1b]0;X\\x07\\x1b[2J\\x1b[Hfake prompt> \\u202etxt.exe\n');
    expect(logged.stderr).not.toContain(ESC);
    const exits = await runCli([
      'tools',
      '-v',
      '--',
      process.execPath,
      '-e',
      'console.error("bye"); process.exit(3)',
    ]);
    expect(exits.code).toBe(4);
    expect(exits.stderr).toMatch(/^bye$/m); // as it came
    expect(exits.stderr).toMatch(/server stderr \(last lines\):\n {2}bye/); // and with the failure
  });

  it('shows a stream line by line: whole lines, a long line in pieces, the rest at its end', async () => {
    const shown: string[] = [];
    const stream = new PassThrough();
    showLines(stream, (text) => shown.push(text));
    // A CRLF and a UTF-8 character (é: c3 a9) cut in two by the chunks; a line of 10,000 characters.
    stream.write(Buffer.from('one\r'));
    stream.write(Buffer.from('\ntwo \xc3', 'latin1'));
    stream.write(Buffer.from('\xa9\nthree', 'latin1'));
    stream.write(Buffer.from(`\n${'x'.repeat(10_000)}`));
    stream.end(Buffer.from('\nlast, with no newline'));
    await new Promise((resolve) => stream.on('end', resolve));
    expect(shown.join('')).toBe(`one\r\ntwo é\nthree\n${'x'.repeat(10_000)}\nlast, with no newline`);
    expect(shown.slice(0, 3)).toEqual(['one\r\n', 'two é\n', 'three\n']);
    expect(Math.max(...shown.map((text) => text.length))).toBeLessThanOrEqual(4096);
    expect(shown.at(-1)).toBe('last, with no newline');
  });

  it('shows the start of a line once the stream falls quiet, and the rest of the line when it comes', async () => {
    const shown: string[] = [];
    let wrote: (text: string) => void = () => undefined;
    const stream = new PassThrough();
    showLines(stream, (text) => (shown.push(text), wrote(text)), 20);
    const next = () => new Promise<string>((resolve) => (wrote = resolve));
    // A surrogate pair's character (🙂: f0 9f 99 82) cut by the chunks is held until whole.
    let shownNext = next();
    stream.write(Buffer.from('Loading \xf0\x9f', 'latin1'));
    expect(await shownNext).toBe('Loading ');
    shownNext = next();
    stream.write(Buffer.from('\x99\x82 still', 'latin1'));
    expect(await shownNext).toBe('\u{1F642} still');
    stream.end(Buffer.from(' done\n'));
    await new Promise((resolve) => stream.on('end', resolve));
    expect(shown).toEqual(['Loading ', '\u{1F642} still', ' done\n']);
  });

  it('with -v, shows the start of a line a server leaves unfinished once it falls quiet, never half a character', async () => {
    // "Loading 🙂..." and the first two of the four bytes of another emoji, then nothing: no newline, no end,
    // no answer to the handshake (it leaves when its stdin ends).
    const server = [
      'process.stderr.write(Buffer.concat([Buffer.from("Loading \\u{1F642}..."), Buffer.from([0xf0, 0x9f])]));',
      'process.stdin.resume().on("end", () => process.exit(0));',
    ].join(' ');
    const child = spawn(
      process.execPath,
      [BIN, 'tools', '-v', '--timeout', '10000', '--', process.execPath, '-e', server],
      { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const closed = new Promise((resolve) => child.on('close', resolve));
    let stderr = '';
    // Shown while the command still waits for the handshake, not when it gives up (or the server leaves):
    // what it wrote by then, or undefined if it exited first.
    const whileWaiting = await new Promise<string | undefined>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('...')) resolve(stderr);
      });
      void closed.then(() => resolve(undefined));
    });
    child.kill();
    await closed;
    // The incomplete character is held back (at the stream's very end it would be shown as U+FFFD).
    expect(whileWaiting).toBe('Loading \u{1F642}...');
  });

  it.runIf(existsSync('/usr/bin/script'))('on a terminal, --json is still valid JSON', async () => {
    // terminalText wrote DEL and C1 as \x7f and \x85, escapes JSON does not have; failures too.
    const json = async (args: string[]) => {
      const command = [process.execPath, BIN, ...args, '--json', ...SERVE];
      const shown = await new Promise<string>((resolve) =>
        execFile(
          'script',
          ['-qec', `${command.join(' ')} 2>/dev/null`, '/dev/null'],
          { cwd: REPO, timeout: 30_000 },
          (_e, out) => resolve(out),
        ),
      );
      expect(shown).not.toMatch(/[\u007f-\u009f\u202e]/);
      return JSON.parse(shown) as unknown;
    };
    expect(await json(['call', '--tool', 'controls'])).toEqual({
      content: [{ type: 'text', text: 'del\u007f c1\u0085 csi\u009b31m' }],
    });
    expect(await json(['call', '--tool', 'steer', '--yes', 'note=hi'])).toMatchObject({
      content: [{ type: 'text', text: `note: hi${'\u001b]52;c;cm0gLXJmIH4=\u0007'} \u202etxt.exe\r\nend` }],
    });
    expect(await json(['call', '--tool', 'refuse'])).toMatchObject({
      error: { message: expect.stringContaining(`refused${OVERWRITE}`) as unknown },
    });
  });

  it("the approval prompt writes out the tool's description and the server's name", async () => {
    const terminal = fakeTerminal();
    const { approver } = terminalApprover(terminal.input, terminal.output);
    const answer = approver({
      server: { name: `srv${OVERWRITE}`, version: '1' },
      tool: {
        name: 'steer',
        description: `Shows a note.${OVERWRITE}`,
        inputSchema: { type: 'object' },
        annotations: { destructiveHint: true },
      },
      arguments: { note: '\u202etxt.exe' },
      reason: 'the tool may be destructive (destructiveHint)',
    });
    await terminal.type('Run it?', 'n');
    expect(await answer).toBe('deny');
    const shown = terminal.screen.text;
    expect(shown).toContain(`description: Shows a note.${SHOWN_OVERWRITE}`);
    expect(shown).toContain(`server:      srv${SHOWN_OVERWRITE} 1`);
    expect(shown).toContain('"note": "\\u202etxt.exe"');
    // The only escapes left are readline's own, drawing the prompt.
    expect(
      shown
        .replaceAll(`${ESC}[1G`, '')
        .replaceAll(`${ESC}[0J`, '')
        .replace(new RegExp(`${ESC}\\[\\d+G`, 'g'), ''),
    ).not.toContain(ESC);
  });

  it("the approval prompt keeps a server's line breaks in its title and names on their own line", async () => {
    const terminal = fakeTerminal();
    const { approver } = terminalApprover(terminal.input, terminal.output);
    const answer = approver({
      server: { name: 'srv\n  why:         trusted', version: '1' },
      tool: {
        name: 'rm',
        title: 'Remove\u2028  annotations: {"readOnlyHint":true}\r\n',
        inputSchema: { type: 'object' },
        annotations: { destructiveHint: true },
      },
      arguments: {},
      reason: 'the tool may be destructive (destructiveHint)',
    });
    await terminal.type('Run it?', 'n');
    expect(await answer).toBe('deny');
    const shown = terminal.screen.text;
    expect(shown).toContain(
      'approval needed to call tool rm (Remove\\u2028  annotations: {"readOnlyHint":true}\\x0d\\n)\n',
    );
    expect(shown).toContain('  server:      srv\\n  why:         trusted 1\n');
    expect(shown.match(/^ {2}annotations: .*$/gm)).toEqual(['  annotations: {"destructiveHint":true}']);
    expect(shown.match(/^ {2}why: .*$/gm)).toEqual([
      '  why:         the tool may be destructive (destructiveHint)',
    ]);
  });
});

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

async function connectWith(terminal: ReturnType<typeof fakeTerminal>, protocolVersion: 'auto' | Revision) {
  const elicitation = terminalElicitation(terminal.input, terminal.output);
  if (!elicitation) throw new Error('the fake terminal is a TTY');
  const client = new Client(
    { name: 'terminal-test', version: '1' },
    {
      protocolVersion,
      elicitation: elicitation.handler,
      onElicitationComplete: elicitation.onComplete,
      capabilities: { elicitation: { form: {}, url: {} } },
    },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', FIXTURE], stderr: 'ignore' }),
  );
  cleanup.push(() => client.close());
  return client;
}

describe('the terminal answers a server that asks', () => {
  it('is not offered when stdin is no terminal', () => {
    expect(terminalElicitation(Object.assign(new PassThrough(), { isTTY: false }) as never)).toBeUndefined();
  });

  for (const revision of ['auto', '2025-11-25'] as const) {
    it(`asks a form field by field, asks again after a wrong answer, and sends the typed values (${revision})`, async () => {
      const terminal = fakeTerminal();
      const client = await connectWith(terminal, revision);
      const call = client.callTool('sign_up', {});
      await terminal.type('Answer it? [y]es / [n]o / [c]ancel', 'y');
      await terminal.type('Your name (name; text; required)', 'A');
      await terminal.type('must NOT have fewer than 2 characters', 'Bob');
      await terminal.type('age (a whole number 0–150)', 'old');
      await terminal.type('not a number: old', '42');
      await terminal.type('plan (one of: 1) free, 2) pro; default "free")', '');
      await terminal.type('tags (any of, comma-separated: 1) a, 2) b, 3) c)', 'c, 1, c');
      await terminal.type('agree (yes/no; required) — You agree to the terms', 'maybe');
      await terminal.type('answer yes or no', 'yes');
      const result = await call;
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
        action: 'accept',
        content: { name: 'Bob', age: 42, plan: 'free', tags: ['c', 'a'], agree: true },
      });
      expect(terminal.screen.text).toContain(`Who are you?${SHOWN_OVERWRITE}`);
    });
  }

  it('declines when the person says no, and cancels on Ctrl-D', async () => {
    const terminal = fakeTerminal();
    const client = await connectWith(terminal, 'auto');
    const declined = client.callTool('sign_up', {});
    await terminal.type('Answer it?', 'n');
    expect((await declined).content[0]).toMatchObject({ text: '{"action":"decline"}' });
    const cancelled = client.callTool('sign_up', {});
    await vi.waitFor(() => expect(terminal.screen.text.slice(terminal.screen.seen)).toContain('Answer it?'));
    terminal.input.end();
    expect((await cancelled).content[0]).toMatchObject({ text: '{"action":"cancel"}' });
  });

  it('shows a page to open with its host as punycode, opens nothing, and says when the server is done', async () => {
    const terminal = fakeTerminal();
    const client = await connectWith(terminal, '2025-11-25');
    // "exаmple" with a Cyrillic а: a look-alike of example.com.
    const call = client.callTool('connect', { url: 'https://ex\u0430mple.com/sign-in?next=%2F' });
    await terminal.type('Will you open it in your browser?', 'y');
    expect((await call).content[0]).toMatchObject({ text: '{"action":"accept"}' });
    expect(terminal.screen.text).toContain(
      'https://xn--exmple-4nf.com/sign-in?next=%2F\n  (on xn--exmple-4nf.com)',
    );
    await vi.waitFor(() =>
      expect(terminal.screen.text).toContain('the server says the page is done (connect-1)'),
    );
  });

  it('withdraws the question when the call ends', async () => {
    const terminal = fakeTerminal();
    const client = await connectWith(terminal, '2025-11-25');
    const abort = new AbortController();
    const call = client.callTool('sign_up', {}, { signal: abort.signal }).catch((e: unknown) => e);
    await terminal.type('Answer it?', 'y');
    await vi.waitFor(() => expect(terminal.screen.text.slice(terminal.screen.seen)).toContain('Your name'));
    abort.abort();
    await call;
    await vi.waitFor(() =>
      expect(terminal.screen.text).toContain('the question is withdrawn (the call ended)'),
    );
  });

  // A real pseudo-terminal (`script`): every client command asks on it, here `toolwire prompt`.
  it.runIf(existsSync('/usr/bin/script'))('toolwire prompt asks on a real terminal too', async () => {
    const command = [process.execPath, BIN, 'prompt', 'greeting', ...SERVE].join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: REPO });
    cleanup.push(async () => void child.kill());
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const type = async (prompt: string, line: string) => {
      await vi.waitFor(() => expect(screen).toContain(prompt), { timeout: 20_000 });
      child.stdin.write(`${line}\n`);
    };
    await type('Answer it?', 'y');
    await type('name (text; required)', 'Ada');
    expect(await exited).toBe(0);
    expect(screen).toContain('Hello, Ada (accept)');
  });

  it('without a terminal, the CLI says the server wanted to ask', async () => {
    const run = await runCli(['call', '--tool', 'connect', ...SERVE]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('toolwire answers its questions only on a terminal (stdin is not a TTY)');
  });
});
