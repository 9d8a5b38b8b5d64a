// The one exit-code rule of every `tradebot` command: 0 done, 1 failed while running, 2 invalid input
// (flags, files, parameters, grids, datasets, configurations). Scripts branch on it, so it lives here once.
import { CommanderError } from 'commander';
import { ValidationError } from '../api/index.js';
import { CandleFileError } from '../data/format.js';
import { BacktestInputError } from '../research/grid.js';
import { ConfigError } from '../config/index.js';
import { OutputPathError } from '../data/output-path.js';
import { StrategyDefinitionError } from '../strategy/contract.js';
import { StrategyLoadError } from '../strategy/loader.js';
import { StrategyParamsError } from '../strategy/params.js';
import { SearchSpaceError } from '../strategy/search-space.js';
import { FlagError } from './flags.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INVALID_INPUT = 2;
/** A check (lookahead's, or a part of it) that did not run: not a pass, and not a failure found either. */
export const EXIT_CHECK_NOT_RUN = 3;

/** The sentence every command's `--help` ends with. */
export const EXIT_CODES_HELP = 'Exit codes: 0 done, 1 failed while running, 2 invalid input.';

/** Errors that mean "what you gave me cannot be used", whatever part of the program found it. */
const INPUT_ERRORS = [
  FlagError,
  ValidationError,
  ConfigError,
  OutputPathError,
  CandleFileError,
  BacktestInputError,
  StrategyParamsError,
  StrategyLoadError,
  StrategyDefinitionError,
  SearchSpaceError,
] as const;

export const isInputError = (err: unknown): boolean => INPUT_ERRORS.some((E) => err instanceof E);

/**
 * The exit code for an error that ended a command. Commander's own errors (unknown option, missing
 * required option or argument, a command without its sub-command) are invalid input; its help and
 * version answers are success.
 */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_INVALID_INPUT;
  return isInputError(err) ? EXIT_INVALID_INPUT : EXIT_FAILED;
}
