import { describe, expect, it } from 'vitest';
import { prefixedLines } from './prefixed-lines.js';

/** What `prefixedLines` makes of `chunks`, written one after another. */
async function through(chunks: (string | Buffer)[], maxLine?: number): Promise<string> {
  const stream = prefixedLines('[up] ', maxLine);
  let out = '';
  stream.on('data', (text: Buffer | string) => (out += text.toString()));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await ended;
  return out;
}

describe('prefixedLines', () => {
  it('prefixes each line, joining lines split across chunks, and ends a last line without newline', async () => {
    expect(await through(['one\ntw', 'o\r\nthr', 'ee'])).toBe('[up] one\n[up] two\n[up] three\n');
  });

  it('joins a character split across chunks', async () => {
    const bytes = Buffer.from('é\n');
    expect(await through([bytes.subarray(0, 1), bytes.subarray(1)])).toBe('[up] é\n');
  });

  it('cuts a line longer than maxLine, dropping its rest up to the newline', async () => {
    expect(await through(['abcdefgh', 'ijk\nnext\n'], 4)).toBe('[up] abcd…\n[up] next\n');
    expect(await through(['x'.repeat(10)], 4)).toBe('[up] xxxx…\n');
  });
});
