// error-explainer CLI entry (bundled to dist/cli.js). Parses the subcommand and dispatches to
// commands/<name>.ts; every failure becomes a one-line message and exit code 2 (no stack trace).
import { type Command, EXIT_OK, EXIT_USAGE, type Io, IoError, UsageError } from './command';
import { dataset } from './commands/dataset';
import { explain } from './commands/explain';
import { extract } from './commands/extract';
import { mcp } from './commands/mcp';
import { scan } from './commands/scan';
import { validate } from './commands/validate';
import { VERSION } from './version';

/** The subcommands, in --help order. To add one: write commands/<name>.ts exporting a Command, then add it here. */
export const COMMANDS: Command[] = [
  scan,
  explain,
  validate,
  dataset,
  extract,
  mcp,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `error-explainer ${VERSION}: explains errors in logs with ErrLookup error records`,
    '',
    'Usage: error-explainer <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'error-explainer <command> --help' for a command's options.",
    '  --help       this help',
    '  --version    print the version',
  ].join('\n');
}

/** Runs the CLI with injected streams; resolves to the exit code. Never throws. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(help() + '\n');
      return first === undefined ? EXIT_USAGE : EXIT_OK;
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(VERSION + '\n');
      return EXIT_OK;
    }
    const command = COMMANDS.find((c) => c.name === first);
    if (!command) throw new UsageError(`unknown command '${first}'`);
    return await command.run(rest, io);
  } catch (e) {
    const usage = e instanceof UsageError;
    const message = e instanceof Error ? e.message : String(e);
    const hint = usage ? ` (see 'error-explainer ${COMMANDS.some((c) => c.name === first) ? `${first} ` : ''}--help')` : '';
    io.stderr.write(`error-explainer: ${message.split('\n')[0]}${hint}\n`);
    if (!usage && !(e instanceof IoError) && io.env['ERROR_EXPLAINER_DEBUG']) io.stderr.write(String((e as Error).stack) + '\n');
    return EXIT_USAGE;
  }
}

if (require.main === module) {
  const io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
  // a reader that closed the pipe (`| head`) is not an error
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') process.stderr.write(`error-explainer: ${e.message}\n`);
  });
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = EXIT_USAGE;
    },
  );
}
