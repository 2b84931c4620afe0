import { describe, expect, it } from 'vitest';
import { forwardedMeta } from './forwarded-meta.js';

describe('forwardedMeta', () => {
  it('keeps a member named __proto__ a member, not the prototype of what goes upstream', () => {
    const meta = JSON.parse(
      '{"__proto__": {"progressToken": "forged"}, "com.example/tenant": "acme"}',
    ) as Record<string, never>;
    const forwarded = forwardedMeta(meta);
    expect(Object.getPrototypeOf(forwarded)).toBe(Object.prototype);
    expect(Object.hasOwn(forwarded ?? {}, '__proto__')).toBe(true);
    expect(JSON.stringify(forwarded)).toBe(
      '{"__proto__":{"progressToken":"forged"},"com.example/tenant":"acme"}',
    );
  });
});
