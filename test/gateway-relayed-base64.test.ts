// A tool result the gateway relays has its binary data checked as base64 once on the way through (its
// client checks what it receives; its server sends those very blocks unchanged, so does not check them
// again): test/fixtures/image-server.mjs returns a 1 MiB image (of base64).
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../src/client/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { startedGateway } from './_served-gateway.js';

const IMAGE = fileURLToPath(new URL('./fixtures/image-server.mjs', import.meta.url));
const MiB = 1024 * 1024;

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('a gateway relaying an image', () => {
  it("checks its base64 once: the gateway's client does, its server sends the checked blocks as they are", async () => {
    const gateway = await startedGateway(
      {
        upstreams: { up: { command: process.execPath, args: [IMAGE], stderr: 'ignore' } },
        policy: { default: 'allow' },
      },
      cleanup,
    );
    const caller = new Client({ name: 'caller', version: '1' }, { protocolVersion: '2025-11-25' });
    cleanup.push(() => caller.close());
    const [clientEnd, serverEnd] = createLinkedPair();
    await gateway.server.connect(serverEnd);
    await caller.connect(clientEnd);
    const [tool] = await caller.listTools();
    // The checks of this process (the gateway's and the caller's) of 1 MiB of text, each a regular
    // expression's run over all of it (isBase64).
    const test = Object.getOwnPropertyDescriptor(RegExp.prototype, 'test')!.value as (
      this: RegExp,
      text: string,
    ) => boolean;
    let checks = 0;
    vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
      if (text.length === MiB) checks += 1;
      return test.call(this, text);
    });
    const result = await caller.callTool(tool!.name, {});
    expect(result.content).toHaveLength(1);
    const [block] = result.content;
    expect(block).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from((block as { data: string }).data, 'base64').subarray(0, 4)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    );
    // The gateway's client, and the caller's (across the in-memory pair, a copy): the gateway's server
    // (its result check, and its media check) checks nothing again.
    expect(checks).toBe(2);
  });
});
