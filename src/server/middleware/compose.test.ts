import { describe, expect, it } from 'vitest';
import { compose, type Middleware } from './compose.js';

type M = Middleware<string[], string>;

describe('compose', () => {
  it('runs middleware in order around the handler, each seeing the result on the way out', async () => {
    const trace =
      (name: string): M =>
      async (log, next) => {
        log.push(`${name} in`);
        const result = await next();
        log.push(`${name} out`);
        return `${name}(${result})`;
      };
    const log: string[] = [];
    const result = await compose([trace('a'), trace('b')], async (l) => {
      l.push('handler');
      return 'r';
    })(log);
    expect(result).toBe('a(b(r))');
    expect(log).toEqual(['a in', 'b in', 'handler', 'b out', 'a out']);
  });

  it('lets a middleware short-circuit: later middleware and the handler never run', async () => {
    const log: string[] = [];
    const stop: M = async () => 'stopped';
    const never: M = async (l, next) => {
      l.push('never');
      return next();
    };
    const result = await compose([stop, never], async (l) => {
      l.push('handler');
      return 'r';
    })(log);
    expect(result).toBe('stopped');
    expect(log).toEqual([]);
  });

  it('rejects when a middleware calls next twice', async () => {
    const twice: M = async (_l, next) => {
      await next();
      return next();
    };
    await expect(compose([twice], async () => 'r')([])).rejects.toThrow(/more than once/);
  });

  it('turns a synchronous throw into a rejection the outer middleware can catch', async () => {
    const outer: M = async (_l, next) => next().catch((error: Error) => `caught ${error.message}`);
    const thrower: M = () => {
      throw new Error('boom');
    };
    await expect(compose([outer, thrower], async () => 'r')([])).resolves.toBe('caught boom');
  });

  it('runs the handler alone when there is no middleware', async () => {
    await expect(compose([], async () => 'r')([])).resolves.toBe('r');
  });
});
