// A gateway given a Redis call log in code, without a bus (no instance number), restarted on the same Redis:
// its calls were numbered from 1 again after every restart, so a new call took the id of the earlier run's
// finished call: it was not shown running (its start read as a late one of that call, the old arguments
// kept) and its end wrote over the old record. The ids now follow the highest the log keeps. Every wait is
// for an event or an answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { redisStores, type RedisStores } from '../src/stores/redis.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { serveGatewayFor } from './_served-gateway.js';

let redis: RedisServerHandle;
let stores: RedisStores;

beforeAll(async () => {
  redis = await startRedis();
  stores = redisStores(redis.url, { prefix: 'ids:' });
});

afterAll(async () => {
  await stores?.close();
  await redis?.close();
});

/** Starts a gateway on the shared call log, makes one call of `echo` with `said` (logged: a listener hears its events), and closes. */
async function oneRun(said: string): Promise<number> {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { said: { type: 'string' } } } }, (args) =>
    text(`echo ${(args as { said: string }).said}`),
  );
  const setup = await serveGatewayFor(server, {
    config: { policy: { default: 'allow' } },
    options: { stores: { calls: stores.calls } },
  });
  try {
    const finished = new Promise<number>((resolve) => {
      setup.gateway.on(
        (event: GatewayEvent) => {
          if (event.type === 'call.finished') resolve(event.callId);
        },
        ['call.started', 'call.finished'],
      );
    });
    const result = await setup.model.callTool('files__echo', { said });
    expect(result.content).toEqual([{ type: 'text', text: `echo ${said}` }]);
    return await finished;
  } finally {
    await setup.close();
  }
}

describe('a call log given in code without a bus, kept across restarts', () => {
  it("numbers each run's calls after the ids it keeps, leaving the earlier runs' records as they were", async () => {
    const first = await oneRun('first');
    const second = await oneRun('second');
    const third = await oneRun('third');
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
    for (const [id, said] of [
      [first, 'first'],
      [second, 'second'],
      [third, 'third'],
    ] as const) {
      expect(await stores.calls.get(id)).toMatchObject({
        state: 'finished',
        outcome: 'ok',
        arguments: { said },
      });
    }
    expect((await stores.calls.list()).map((summary) => summary.call.id)).toEqual([third, second, first]);
  });
});
