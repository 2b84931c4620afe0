// A server that sends its list_changed notifications by the thousand (test/fixtures/list-storm-server.mjs,
// raw JSON lines): the client refetches its tools once per burst, not once per notification, and so does
// the gateway for an upstream's resources and prompts. 1,000 of each made 1,000 listings of each (and, with
// a long list behind a gateway, an upstream that died of its unread output).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { Tool } from '../src/protocol/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { BIN } from './_gateway.js';

const STORM = fileURLToPath(new URL('./fixtures/list-storm-server.mjs', import.meta.url));
const open: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

const counts = (text: string | undefined) =>
  JSON.parse(text ?? '{}') as { tools: number; resources: number; prompts: number };

describe('list_changed by the thousand', () => {
  it('the client lists the tools again once per burst, and its listeners get the last list', async () => {
    const client = new Client({ name: 'storm-client', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    open.push(() => client.close());
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [STORM] }));
    const seen: Array<readonly Tool[]> = [];
    client.onToolsChanged((tools) => seen.push(tools));
    const stormed = await client.callTool('storm', { count: 1000 });
    expect(stormed.content[0]).toMatchObject({ text: 'stormed' });
    for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const listed = (await client.callTool('lists')).content[0];
    const { tools } = counts(listed?.type === 'text' ? listed.text : undefined);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)?.map((tool) => tool.name)).toEqual(['storm', 'lists']);
    // The first fetch, and one more for what came while it ran (a few, should notifications straddle them).
    expect(tools).toBeLessThanOrEqual(5);
  });

  it('the gateway lists an upstream again once per burst of each kind', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'gateway',
        '--stdio',
        '--default',
        'allow',
        '--api-port',
        '0',
        '--upstream',
        'st',
        '--',
        process.execPath,
        STORM,
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    open.push(() => child.kill('SIGKILL'));
    type Answer = { id?: number; result?: { content?: Array<{ text?: string }> } };
    const waiting = new Map<number, (message: Answer) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Answer;
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    });
    let id = 0;
    const request = (method: string, params: object) =>
      new Promise<Answer>((resolve) => {
        waiting.set(++id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'host', version: '1' },
    });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const started = performance.now();
    const stormed = await request('tools/call', { name: 'st__storm', arguments: { count: 1000 } });
    expect(stormed.result?.content?.[0]?.text).toBe('stormed');
    // The listings settle: the same counts twice, 200 ms apart.
    let last = '';
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const now =
        (await request('tools/call', { name: 'st__lists', arguments: {} })).result?.content?.[0]?.text ?? '';
      if (now === last) break;
      last = now;
    }
    const listed = counts(last);
    expect(listed.tools).toBeLessThanOrEqual(5);
    expect(listed.resources).toBeLessThanOrEqual(5);
    expect(listed.prompts).toBeLessThanOrEqual(5);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
