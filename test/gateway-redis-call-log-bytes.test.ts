// `toolwire gateway --redis` (a process, on a throwaway redis-server): the call log keeps a call's arguments
// and result up to 256 KiB of JSON each. A call of 300 KiB arguments, echoed back as a 300 KiB result, is
// read through the API without either (`argumentsDropped` / `resultDropped: "too-large"`) and takes a few
// hundred bytes in Redis, where it took 600 KiB (at 4 MiB each way, 500 calls held 4 GiB); a small call
// keeps both. Every wait is for an event or an answer.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import {
  PROTOCOL_FIXTURE,
  startGateway,
  toolwireUpstream,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

let redis: RedisServerHandle;
let gateway: RunningGateway;
let client: Client;
let reader: Redis;

beforeAll(async () => {
  redis = await startRedis();
  const config = writeConfig({
    upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
    policy: { default: 'allow' },
  });
  gateway = await startGateway(['--config', config, '--redis', redis.url]);
  client = new Client({ name: 'model', version: '1.0.0' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
  reader = new Redis(redis.url);
});

afterAll(async () => {
  reader?.disconnect();
  await client?.close().catch(() => undefined);
  await gateway?.close();
  await redis?.close();
});

interface CallView {
  call: { id: number; exposedName: string };
  state: string;
  arguments: Record<string, unknown>;
  hasResult: boolean;
  argumentsDropped?: string;
  resultDropped?: string;
}

/** Calls fx__echo with `text` while an event stream is open (calls are logged while one is), and reads its record. */
async function echoed(text: string): Promise<{ view: CallView; bytes: number }> {
  const events = await gateway.events();
  const result = await client.callTool('fx__echo', { text });
  expect(result.isError).not.toBe(true);
  const finished = await events.next('call.finished', (e) => e.outcome === 'ok');
  const id = finished.callId as number;
  let view: CallView | undefined;
  await expect
    .poll(async () => {
      const response = await gateway.api(`/calls/${id}`);
      view = response.status === 200 ? ((await response.json()) as CallView) : undefined;
      return view?.state;
    })
    .toBe('finished');
  const keys = await reader.keys(`*gateway:call:${id}`);
  expect(keys).toHaveLength(1);
  const bytes = (await reader.memory('USAGE', keys[0]!, 'SAMPLES', 0)) ?? 0;
  return { view: view!, bytes };
}

describe('the call log on Redis, per call', () => {
  it('keeps neither arguments nor result over 256 KiB, says so, and stores a few hundred bytes for them', async () => {
    const big = 'x'.repeat(300 * 1024);
    const { view, bytes } = await echoed(big);
    expect(view).toMatchObject({
      arguments: {},
      argumentsDropped: 'too-large',
      hasResult: false,
      resultDropped: 'too-large',
    });
    expect(view).not.toHaveProperty('result');
    expect(bytes).toBeLessThan(4096);
  });

  it('keeps a small call whole', async () => {
    const { view } = await echoed('small');
    expect(view).toMatchObject({ arguments: { text: 'small' }, hasResult: true });
    expect(view).not.toHaveProperty('argumentsDropped');
    expect(view).not.toHaveProperty('resultDropped');
  });
});
