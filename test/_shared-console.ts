// Console gateways sharing one Redis, as instances in other processes would: the set-up of the console's
// shared-instance tests. `sharedConsole(prefix)` gives its test file a Redis server and a browser (made
// before its tests, closed after them with every instance and its stores), and `instance(…)` one more
// gateway on that Redis, with stores of its own.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { GatewayStores } from '../src/gateway/index.js';
import type { Server } from '../src/server/index.js';
import { redisStores, type RedisStores, type RedisStoresOptions } from '../src/stores/redis.js';
import { launchBrowser, startConsoleGateway, type ConsoleFixture } from './_console.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

export interface SharedInstance {
  readonly fixture: ConsoleFixture;
  /** The instance's own stores on the shared Redis. */
  readonly stores: RedisStores;
}

export interface SharedConsole {
  /** The file's browser (once its tests run). */
  readonly browser: Browser;
  /**
   * A gateway in front of `upstream` with `rules`, its stores of its own on the shared Redis (`options`
   * beside the file's prefix); `use` picks which of them it gets (approvals, calls, bus …).
   */
  instance(
    upstream: Server,
    rules: Parameters<typeof startConsoleGateway>[1],
    use: (stores: RedisStores) => GatewayStores,
    options?: Omit<RedisStoresOptions, 'prefix'>,
  ): Promise<SharedInstance>;
}

/** For the test file that calls it: a Redis server and a browser, and gateways sharing that Redis. */
export function sharedConsole(prefix: string): SharedConsole {
  let browser: Browser | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;
  let redis: RedisServerHandle | undefined;
  const instances: SharedInstance[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  afterAll(async () => {
    for (const { fixture } of instances) await fixture.close();
    for (const { stores } of instances) await stores.close();
    await closeBrowser?.();
    await redis?.close();
  });

  return {
    get browser(): Browser {
      if (!browser) throw new Error('the browser is launched before the tests run');
      return browser;
    },
    async instance(upstream, rules, use, options = {}) {
      if (!redis) throw new Error('Redis is started before the tests run');
      const stores = redisStores(redis.url, { ...options, prefix });
      try {
        const fixture = await startConsoleGateway(upstream, rules, { stores: use(stores) });
        const instance = { fixture, stores };
        instances.push(instance);
        return instance;
      } catch (error) {
        await stores.close();
        throw error;
      }
    },
  };
}
