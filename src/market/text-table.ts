// Aligned text tables for a terminal: a header row, then rows; columns marked numeric are aligned right
// (so decimal amounts line up), the others left. Cells are plain strings, already formatted.

export interface Column {
  readonly header: string;
  /** Right-aligned (amounts, counts). */
  readonly numeric?: boolean | undefined;
}

/** The table as lines (no trailing newline), columns two spaces apart. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((c, i) => {
        const v = cells[i] ?? '';
        const w = widths[i] ?? 0;
        return c.numeric === true ? v.padStart(w) : v.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join('\n');
}
