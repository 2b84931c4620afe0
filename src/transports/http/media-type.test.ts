import { describe, expect, it } from 'vitest';
import { acceptable, isJsonContentType, parseAccept, parseMediaType } from './media-type.js';

describe('parseMediaType', () => {
  it('reads type, subtype and parameters case-insensitively, quoted values unescaped', () => {
    expect(parseMediaType('Application/JSON ; Charset="utf-8" ; q=0.5')).toEqual({
      type: 'application',
      subtype: 'json',
      q: 0.5,
      params: { charset: 'utf-8' },
    });
    expect(parseMediaType('text/plain; note="a;b,\\"c\\""')?.params).toEqual({ note: 'a;b,"c"' });
  });

  it('refuses what is not a media type', () => {
    for (const text of ['json', 'application/', '/json', 'application/json; charset', 'a b/c', 'text/x; q=2'])
      expect(parseMediaType(text), text).toBeUndefined();
  });
});

describe('acceptable', () => {
  it('accepts the types listed, in any order, with parameters and spaces', () => {
    for (const header of [
      'application/json, text/event-stream',
      'text/event-stream,application/json',
      'application/json;q=0.9, text/event-stream;q=0.8',
      'APPLICATION/JSON , Text/Event-Stream',
      'application/json; charset=utf-8, text/event-stream',
    ])
      expect(acceptable(header), header).toEqual({ json: true, eventStream: true });
  });

  it('accepts wildcards, the most specific range deciding', () => {
    expect(acceptable('*/*')).toEqual({ json: true, eventStream: true });
    expect(acceptable('application/*, text/*')).toEqual({ json: true, eventStream: true });
    expect(acceptable('text/event-stream;q=0, */*')).toEqual({ json: true, eventStream: false });
    expect(acceptable('application/json;q=0, application/*')).toEqual({ json: false, eventStream: false });
  });

  it('does not take a type that merely starts with or contains the name', () => {
    expect(acceptable('application/json-seq, text/event-streams')).toEqual({
      json: false,
      eventStream: false,
    });
    expect(acceptable('application/jsonx, text/event-stream')).toEqual({ json: false, eventStream: true });
    expect(acceptable('text/plain; note="application/json, text/event-stream"')).toEqual({
      json: false,
      eventStream: false,
    });
  });

  it('refuses a type weighted 0, and an absent header', () => {
    expect(acceptable('application/json, text/event-stream;q=0')).toEqual({ json: true, eventStream: false });
    expect(acceptable('application/json;q=0.000, text/event-stream')).toEqual({
      json: false,
      eventStream: true,
    });
    expect(acceptable(null)).toEqual({ json: false, eventStream: false });
  });

  it('skips malformed elements and keeps the rest', () => {
    expect(parseAccept('garbage, */json, text/event-stream, ,application/json;q=7')).toEqual([
      { type: 'text', subtype: 'event-stream', q: 1, params: {} },
    ]);
  });

  it('parses a long header in linear time', () => {
    const header = `${'a/b;x="'.repeat(20_000)}, application/json`;
    const started = performance.now();
    acceptable(header);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('isJsonContentType', () => {
  it('takes application/json with or without a UTF-8 charset', () => {
    for (const header of ['application/json', 'Application/Json', 'application/json; charset=UTF-8'])
      expect(isJsonContentType(header), header).toBe(true);
  });

  it('refuses look-alikes, other charsets and nothing', () => {
    for (const header of [
      'application/json-seq',
      'application/jsonp',
      'text/plain; x=application/json',
      'application/json; charset=latin1',
      'application/*',
      '',
    ])
      expect(isJsonContentType(header), header).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });
});
