import process from 'node:process';
import { afterEach, describe, expect, it } from 'vitest';
import { SAFE_ENV_VARS, buildEnvironment } from './child-environment.js';

describe('buildEnvironment', () => {
  afterEach(() => {
    delete process.env.TOOLWIRE_SECRET_FOR_TEST;
  });

  it('inherits all of process.env by default, with extra variables merged over it', () => {
    process.env.TOOLWIRE_SECRET_FOR_TEST = 'inherited';
    const env = buildEnvironment({ TOOLWIRE_SECRET_FOR_TEST: 'override', EXTRA: '1' }, true);
    expect(env.TOOLWIRE_SECRET_FOR_TEST).toBe('override');
    expect(env.EXTRA).toBe('1');
    expect(env.PATH).toBe(process.env.PATH);
  });

  it('passes only the safe variables when inheritance is off', () => {
    process.env.TOOLWIRE_SECRET_FOR_TEST = 'secret';
    const env = buildEnvironment({ EXTRA: '1' }, false);
    expect(env.TOOLWIRE_SECRET_FOR_TEST).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    expect(Object.keys(env).every((name) => name === 'EXTRA' || SAFE_ENV_VARS.includes(name))).toBe(true);
  });
});
