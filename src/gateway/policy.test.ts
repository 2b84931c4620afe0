import { describe, expect, it } from 'vitest';
import { Policy } from './policy.js';

const trustedOnly = (name: string) => name === 'trusted';

describe('Policy', () => {
  it('lets the first matching rule decide, by upstream and tool glob', () => {
    const policy = new Policy({
      rules: [
        { upstream: 'files', tool: 'write_*', action: 'ask' },
        { tool: 'write_*', action: 'deny' },
        { upstream: 'f*', tool: '*', action: 'allow' },
      ],
      trusted: trustedOnly,
    });
    expect(policy.decide('files', { name: 'write_file' })).toEqual({
      action: 'ask',
      reason: 'rule 1 (files.write_*=ask)',
    });
    expect(policy.decide('web', { name: 'write_page' })).toEqual({
      action: 'deny',
      reason: 'rule 2 (*.write_*=deny)',
    });
    expect(policy.decide('fetch', { name: 'get' }).action).toBe('allow');
  });

  it('asks by default for an untrusted upstream, whatever its annotations say', () => {
    const policy = new Policy({ trusted: trustedOnly });
    expect(policy.decide('web', { name: 'read', annotations: { readOnlyHint: true } })).toEqual({
      action: 'ask',
      reason: 'no rule matched and upstream web is not trusted (default: ask)',
    });
    expect(new Policy({ default: 'allow', trusted: trustedOnly }).decide('web', { name: 'x' }).action).toBe(
      'allow',
    );
  });

  it("lets a trusted upstream's annotations decide, with the spec's defaults", () => {
    const policy = new Policy({ default: 'deny', trusted: trustedOnly });
    const decide = (annotations?: Record<string, boolean>) =>
      policy.decide('trusted', { name: 't', ...(annotations ? { annotations } : {}) }).action;
    expect(decide({ readOnlyHint: true })).toBe('allow');
    expect(decide()).toBe('ask'); // unknown: may be destructive
    expect(decide({ destructiveHint: true })).toBe('ask');
    expect(decide({ destructiveHint: false })).toBe('ask'); // openWorldHint defaults to true
    expect(decide({ destructiveHint: false, openWorldHint: false })).toBe('allow');
  });
});

describe('Policy: names an upstream chose', () => {
  it('matches a rule against a 100,000-character tool name in milliseconds', () => {
    const policy = new Policy({
      rules: [
        { tool: '*_*_delete', action: 'deny' },
        { tool: '*-*-*-prod', action: 'deny' },
        { tool: '*', action: 'allow' },
      ],
      trusted: trustedOnly,
    });
    const started = performance.now();
    // As backtracking regexps these took about 26 s (quadratic) and hours (cubic).
    expect(policy.decide('web', { name: '_'.repeat(100_000) }).action).toBe('allow');
    expect(policy.decide('web', { name: '-'.repeat(100_000) }).action).toBe('allow');
    expect(policy.decide('web', { name: `${'-'.repeat(100_000)}prod` }).action).toBe('deny');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
