// What a huge tool result costs the server is in proportion to what it may send (1 MiB), not to what the
// tool returned: text far past the cap is cut before the redactor or the byte count reads it. Counted in
// CPU time of the server's main thread (a real stdio child), which a busy machine does not inflate: one
// call of 64 MiB cost ≈460 ms (ASCII) and ≈200 ms (32 Mi two-byte characters) when redaction and the byte
// count read it all before the cut; ≈22 ms now.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';
import { serverCommand } from './_setup.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/output-cost-server.mjs', import.meta.url));
const MiB = 1024 * 1024;
/** CPU ms one call of a 64 MiB result may cost the server's event loop. */
const BOUND_MS = 100;

async function connect() {
  const transport = new StdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' });
  const client = new Client({ name: 'output-cost', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const firstText = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content[0]?.text ?? '';

describe('a 64 MiB tool result', () => {
  it.each([
    ['ASCII', 'x'],
    ['two-byte characters', 'é'],
  ])(
    'of %s costs the server a bounded few ms, and comes cut to 1 MiB with a marker',
    async (_, fill) => {
      const client = await connect();
      try {
        await client.callTool('make', { mib: 64, fill });
        const cpu = async () => ((await client.callTool('cpu', {})).structuredContent as { ms: number }).ms;
        const before = await cpu();
        const result = await client.callTool('made', {});
        const cost = (await cpu()) - before;
        const text = firstText(result);
        expect(cost, `${cost.toFixed(0)} ms of CPU for one call`).toBeLessThan(BOUND_MS);
        expect(result.isError).toBeFalsy();
        expect(text).toMatch(/…\[truncated at least \d+ bytes\]$/);
        expect(Buffer.byteLength(text.replace(/…\[truncated.*$/, ''))).toBeLessThanOrEqual(MiB);
        expect(text.startsWith(fill.repeat(1000))).toBe(true);
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
