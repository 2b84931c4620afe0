// A server that sends its list_changed notifications by the thousand (test/fixtures/list-storm-server.mjs,
// raw JSON lines): the client refetches its tools once per burst, not once per notification, and so does
// the gateway for an upstream's resources and prompts. 1,000 of each made 1,000 listings of each (and, with
// a long list behind a gateway, an upstream that died of its unread output).
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { Tool } from '../src/protocol/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { BIN } from './_gateway.js';
import { RawWire } from './_wire.js';

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
    const args = [BIN, 'gateway', '--stdio', '--default', 'allow', '--api-port', '0', '--upstream', 'st'];
    await using wire = new RawWire({
      command: process.execPath,
      args: [...args, '--', process.execPath, STORM],
    });
    await wire.initialize();
    type Answer = { result?: { content?: Array<{ text?: string }> } };
    const call = async (id: number, name: string, args: object = {}) => {
      wire.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
      return (await wire.answer<Answer>(id)).result?.content?.[0]?.text ?? '';
    };
    const started = performance.now();
    expect(await call(1, 'st__storm', { count: 1000 })).toBe('stormed');
    // The listings settle: the same counts twice, 200 ms apart.
    let last = '';
    for (let id = 2; id < 52; id++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = await call(id, 'st__lists');
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
