import { describe, expect, it } from 'vitest';
import { frontmatterDifferences, parseFrontmatter } from './frontmatter.js';

describe('parseFrontmatter', () => {
  it('reads scalars, quoted strings, nested mappings and sequences', () => {
    const md = [
      '\ufeff---',
      'name: pdf-processing # the skill',
      "description: 'Don''t guess: read the form'",
      'license: "MIT"',
      'version: 2',
      'draft: false',
      'metadata:',
      '  author: Ada',
      '  tags: [pdf, "forms"]',
      'allowed-tools:',
      '  - Read',
      '  - Bash',
      '---',
      '',
      'Body with --- inside.',
    ].join('\n');
    expect(parseFrontmatter(md)).toEqual({
      name: 'pdf-processing',
      description: "Don't guess: read the form",
      license: 'MIT',
      version: 2,
      draft: false,
      metadata: { author: 'Ada', tags: ['pdf', 'forms'] },
      'allowed-tools': ['Read', 'Bash'],
    });
  });

  it('gives up (undefined) on a missing block or YAML beyond the subset', () => {
    expect(parseFrontmatter('# no frontmatter\n')).toBeUndefined();
    expect(parseFrontmatter('---\ndescription: |\n  multi\n---\n')).toBeUndefined();
    expect(parseFrontmatter('---\nname: a\nname: b\n---\n')).toBeUndefined();
    expect(parseFrontmatter('---\n- a\n---\n')).toBeUndefined();
  });
});

describe('frontmatterDifferences', () => {
  it('names every field whose value differs, a missing field counting as null', () => {
    const file = { name: 'a', description: 'x', metadata: { k: [1, 2] }, extra: null };
    expect(frontmatterDifferences(file, { name: 'a', description: 'x', metadata: { k: [1, 2] } })).toEqual(
      [],
    );
    expect(
      frontmatterDifferences(file, { name: 'a', description: 'y', metadata: { k: [1] }, more: 1 }),
    ).toEqual(['description', 'metadata', 'more']);
  });
});
