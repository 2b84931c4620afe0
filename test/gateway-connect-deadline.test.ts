// An upstream that never answers, behind `toolwire gateway` (its own process) beside a well-behaved one:
// the gateway serves once every upstream was tried once, and trying one takes 30 s at most in all (spawn,
// era probe, handshake, first lists). Before, each step had only its own timeout: this upstream held the
// gateway 61 s (the probe, then `initialize`, 30 s each) before it served anyone.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_FIXTURE, startGateway, toolwireUpstream, writeConfig } from './_gateway.js';

const MUTE = fileURLToPath(new URL('./fixtures/mute-server.mjs', import.meta.url));

describe('an upstream that never answers', () => {
  it('holds the gateway 30 s at most, then is down saying why, and the others serve', async () => {
    const config = writeConfig({
      upstreams: {
        fx: toolwireUpstream(PROTOCOL_FIXTURE, { protocolVersion: '2025-11-25' }),
        mute: { command: process.execPath, args: [MUTE], stderr: 'ignore' },
      },
      policy: { default: 'allow' },
    });
    const started = performance.now();
    const gateway = await startGateway(['--config', config]);
    try {
      // 30 s and a start; before, 61 s.
      expect(performance.now() - started).toBeLessThan(50_000);
      const upstreams = (await (await gateway.api('/upstreams')).json()) as {
        upstreams: { name: string; status: string; error?: string }[];
      };
      expect(upstreams.upstreams.find((u) => u.name === 'mute')).toMatchObject({
        status: 'down',
        error: 'connecting took longer than 30 s',
      });
      expect(upstreams.upstreams.find((u) => u.name === 'fx')).toMatchObject({ status: 'ready' });
    } finally {
      await gateway.close();
    }
  }, 90_000);
});
