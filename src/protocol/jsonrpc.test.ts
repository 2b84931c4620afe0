import { describe, expect, it } from 'vitest';
import { assignMembers, withMember, type JsonObject } from './jsonrpc.js';

describe('withMember', () => {
  it('copies the base with one member set, leaving the base as it was', () => {
    const base = { a: 1, b: { c: 2 }, _meta: { old: true } };
    const out = withMember(base, '_meta', { fresh: true });
    expect(out).toEqual({ a: 1, b: { c: 2 }, _meta: { fresh: true } });
    expect(Object.keys(out)).toEqual(['a', 'b', '_meta']);
    expect(base._meta).toEqual({ old: true });
    expect(out.b).toBe(base.b);
  });

  it('starts from nothing when there is no base', () => {
    expect(withMember(undefined, 'k', 1)).toEqual({ k: 1 });
  });

  it('keeps an own "__proto__" member (JSON.parse makes one) a member, as a spread would', () => {
    const base = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as JsonObject;
    const out = withMember(base, 'k', 2) as JsonObject;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1,"k":2}');
  });
});

describe('assignMembers', () => {
  it('assigns like Object.assign, in the source’s order after the target’s own', () => {
    const out = assignMembers({ first: 0 } as JsonObject, { b: 1, a: 2, first: 3 });
    expect(out).toEqual({ first: 3, b: 1, a: 2 });
    expect(Object.keys(out)).toEqual(['first', 'b', 'a']);
    expect(assignMembers({ x: 1 }, undefined)).toEqual({ x: 1 });
  });

  it('never sets the target’s prototype from a "__proto__" member', () => {
    const out = assignMembers({} as JsonObject, JSON.parse('{"__proto__":{"isError":true}}') as object);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { isError?: unknown }).isError).toBeUndefined();
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });
});
