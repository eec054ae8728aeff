// A small argv parser shared by the subcommands: `--name value`, `--name=value`, repeated options,
// boolean flags, `--` ends options, `-` is a positional (stdin).
import { UsageError } from './command';

export type OptionKind = 'boolean' | 'string' | 'strings';
export type OptionSpec = Record<string, OptionKind>;

export interface ParsedArgs {
  /** boolean -> true, string -> last value, strings -> every value in order. */
  options: Record<string, boolean | string | string[]>;
  positionals: string[];
}

export function parseArgs(args: string[], spec: OptionSpec): ParsedArgs {
  const options: Record<string, boolean | string | string[]> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    if (arg === '-h') {
      options['help'] = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown option '${arg}'`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const kind = name === 'help' ? 'boolean' : spec[name];
    if (!kind) throw new UsageError(`unknown option '--${name}'`);
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`option '--${name}' takes no value`);
      options[name] = true;
      continue;
    }
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = args[i + 1];
      if (next === undefined) throw new UsageError(`option '--${name}' needs a value`);
      value = next;
      i++;
    }
    if (kind === 'string') options[name] = value;
    else {
      const list = (options[name] as string[] | undefined) ?? [];
      list.push(value);
      options[name] = list;
    }
  }
  return { options, positionals };
}

export function stringOption(p: ParsedArgs, name: string): string | undefined {
  const v = p.options[name];
  return typeof v === 'string' ? v : undefined;
}
export function stringsOption(p: ParsedArgs, name: string): string[] {
  const v = p.options[name];
  return Array.isArray(v) ? v : [];
}
export function flag(p: ParsedArgs, name: string): boolean {
  return p.options[name] === true;
}
