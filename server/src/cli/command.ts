// The shape of one CLI subcommand. main.ts dispatches `error-explainer <name> ...` to the command
// with that name from its table; each command lives in commands/<name>.ts and exports one `Command`.
import type { Readable, Writable } from 'node:stream';
import type { CommandName } from './commandNames';

/** Standard streams and process facts, injected so tests can run commands in-process. */
export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  cwd: string;
  env: Record<string, string | undefined>;
}

export interface Command {
  name: CommandName;
  /** One line for `--help`. */
  summary: string;
  /** Usage text printed by `error-explainer <name> --help` (first line: the synopsis). */
  usage: string;
  /** Runs the command; resolves to the exit code (0 ok, 1 findings/validation errors, 2 usage/I-O). */
  run(args: string[], io: Io): Promise<number>;
}

/** Bad arguments: main prints `error-explainer: <message>` and exits 2. */
export class UsageError extends Error {}
/** Unreadable input / unwritable output: main prints `error-explainer: <message>` and exits 2. */
export class IoError extends Error {}

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;
