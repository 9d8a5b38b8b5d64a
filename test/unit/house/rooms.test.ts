// The house's rooms: every folder of src/ says what it holds and what it may import (its README.md), and that line
// is the lint rule's layer list, so the two cannot drift apart.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../../eslint.config.js';

const root = join(import.meta.dirname, '..', '..', '..');
const folders = readdirSync(join(root, 'src')).filter((f) => statSync(join(root, 'src', f)).isDirectory());

describe('the folders of src/', () => {
  it('are each in exactly one layer of eslint.config.js', () => {
    const layered = LAYERS.flat();
    expect([...folders].sort()).toEqual([...layered].sort());
  });

  it.each(folders)('src/%s opens with a README that says what it holds and what it may import', (folder) => {
    const readme = join(root, 'src', folder, 'README.md');
    expect(existsSync(readme), `src/${folder}/README.md is missing`).toBe(true);
    const text = readFileSync(readme, 'utf8');
    const rank = LAYERS.findIndex((l) => l.includes(folder));
    const below = LAYERS.slice(rank + 1).flat();
    const may = /May import: (.*)\./.exec(text.replace(/\s+/g, ' '))?.[1];
    expect(may).toBe(
      below.length > 0 ? below.map((f) => `\`${f}\``).join(', ') : 'nothing of src/ (only packages)',
    );
  });
});
