import { describe, expect, it } from 'vitest';
import { utf8Length } from './size-caps.js';

describe('utf8Length', () => {
  it.each(['', 'abc', 'é', '€', '😀', 'a\ud800b', '\udc00', '\ud800', `${'x'.repeat(1000)}漢字😀\ud83d`])(
    'counts %j like TextEncoder, without making the bytes',
    (text) => {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    },
  );
});
