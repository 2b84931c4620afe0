import { describe, expect, it } from 'vitest';
import { progressLine } from './progress-line.js';

describe('progressLine', () => {
  it('prints a message that states the count alone, as "P/T", "P / T" or "P of T"', () => {
    expect(progressLine({ progress: 3, total: 10, message: '3/10 files scanned' })).toBe(
      'progress: 3/10 files scanned\n',
    );
    expect(progressLine({ progress: 3, total: 10, message: 'step 3 of 10' })).toBe(
      'progress: step 3 of 10\n',
    );
    expect(progressLine({ progress: 0.5, total: 1, message: 'half: 0.5 / 1' })).toBe(
      'progress: half: 0.5 / 1\n',
    );
  });

  it('keeps the counter before a message that does not state it, or states other numbers', () => {
    expect(progressLine({ progress: 33, total: 100, message: 'Completed step 1 of 3' })).toBe(
      'progress: 33/100 Completed step 1 of 3\n',
    );
    expect(progressLine({ progress: 3, total: 10, message: '13/100 done' })).toBe(
      'progress: 3/10 13/100 done\n',
    );
    expect(progressLine({ progress: 3, total: 10, message: '3/100 done' })).toBe(
      'progress: 3/10 3/100 done\n',
    );
    expect(progressLine({ progress: 1, message: 'Waiting for approval 1 of x' })).toBe(
      'progress: 1 Waiting for approval 1 of x\n',
    );
    expect(progressLine({ progress: 2, total: 4 })).toBe('progress: 2/4\n');
  });

  it('keeps a message on its line', () => {
    expect(progressLine({ progress: 1, total: 2, message: 'half\nnext' })).toBe(
      'progress: 1/2 half\\nnext\n',
    );
  });
});
