// The CLI's progress bar on long work: drawn on stderr when it is a terminal, absent otherwise (a log
// file or a pipe gets the command's result lines only).
import cliProgress from 'cli-progress';

/** A bar with cli-progress' `format` (e.g. 'record {bar} {value}/{total} windows'), or undefined off a terminal. */
export function progressBar(format: string): cliProgress.SingleBar | undefined {
  return process.stderr.isTTY
    ? new cliProgress.SingleBar({ format, stream: process.stderr }, cliProgress.Presets.shades_classic)
    : undefined;
}
