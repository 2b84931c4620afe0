import { describe, expect, it } from 'vitest';
import { isTraceparent, traceContext } from './trace-context.js';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceContext', () => {
  it('accepts a version 00 traceparent and the tracestate that comes with it', () => {
    expect(traceContext({ traceparent: VALID, tracestate: 'rojo=00f067aa0ba902b7' })).toEqual({
      traceparent: VALID,
      tracestate: 'rojo=00f067aa0ba902b7',
    });
    expect(traceContext({ traceparent: VALID })).toEqual({ traceparent: VALID });
  });

  it('ignores a malformed traceparent, and the tracestate with it', () => {
    expect(traceContext({ traceparent: 'nope', tracestate: 'a=b' })).toEqual({});
    expect(traceContext({ tracestate: 'a=b' })).toEqual({});
    expect(traceContext(undefined)).toEqual({});
  });

  it.each([
    ['upper-case hex', VALID.toUpperCase()],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['extra fields on version 00', `${VALID}-xyz`],
    ['a number', 42],
  ])('refuses %s', (_name, value) => {
    expect(isTraceparent(value)).toBe(false);
  });

  it('accepts extra fields on a later version', () => {
    expect(isTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future')).toBe(true);
  });
});
