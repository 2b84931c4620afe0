// An upstream's `connectTimeoutMs`: how long connecting may take in all, per upstream (default 30 s). Two
// upstreams that take ≈2.5 s to start behind `toolwire gateway` (its own process): the one allowed 20 s is
// ready, the one allowed 1 s is down saying so. Before, the 30 s were fixed: a server slower to start could
// never connect, and a config naming `connectTimeoutMs` was refused.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, PROTOCOL_FIXTURE, startGateway, writeConfig } from './_gateway.js';

const SLOW_START = fileURLToPath(new URL('./fixtures/slow-start.mjs', import.meta.url));

const slow = (connectTimeoutMs: number) => ({
  command: process.execPath,
  args: ['--import', SLOW_START, BIN, 'serve', PROTOCOL_FIXTURE],
  env: { SLOW_START_MS: '2500' },
  stderr: 'ignore' as const,
  connectTimeoutMs,
});

describe("an upstream's connectTimeoutMs", () => {
  it('bounds its connecting: the slow upstream allowed 20 s is ready, the one allowed 1 s is down', async () => {
    const config = writeConfig({
      upstreams: { patient: slow(20_000), hasty: slow(1_000) },
      policy: { default: 'allow' },
      // The down one stays down while the test reads it (no second attempt within a minute).
      reconnect: { initialDelayMs: 60_000 },
    });
    const gateway = await startGateway(['--config', config]);
    try {
      const upstreams = (await (await gateway.api('/upstreams')).json()) as {
        upstreams: { name: string; status: string; error?: string }[];
      };
      expect(upstreams.upstreams.find((u) => u.name === 'patient')).toMatchObject({ status: 'ready' });
      expect(upstreams.upstreams.find((u) => u.name === 'hasty')).toMatchObject({
        status: 'down',
        error: 'connecting took longer than 1 s',
      });
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
