// The order vitest runs the test files in, so that two workers finish together: the slowest first. A clean
// clone (CI) has no durations from an earlier run, and vitest's fallback (the largest file first) once left an
// 17 s integration file alone at the end. Without durations, the folders that wait on daemons, simulators and
// browsers go first (e2e, then integration), the quick unit files last, where they fill the gaps.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RANK = ['test/e2e/', 'test/integration/', 'test/contract/'];
const rankOf = (path: string): number => {
  const i = RANK.findIndex((r) => path.startsWith(r));
  return i === -1 ? RANK.length : i;
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(root, f.moduleId)}`;
    const known = files.every((f) => this.ctx.cache.getFileTestResults(key(f)) !== undefined);
    // A full set of durations from an earlier run: vitest's own order (failed first, then the longest).
    if (known) return super.sort(files);
    const size = (f: TestSpecification) => this.ctx.cache.getFileStats(key(f))?.size ?? 0;
    return [...files].sort(
      (a, b) => rankOf(relative(root, a.moduleId)) - rankOf(relative(root, b.moduleId)) || size(b) - size(a),
    );
  }
}
