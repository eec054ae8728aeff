// The subcommands' names, in --help order: what a Command may be called (cli/command.ts) and the
// command words the launcher keeps a code cache for (cli/launch.ts, which loads nothing else).
export const COMMAND_NAMES = ['scan', 'explain', 'validate', 'dataset', 'extract', 'mcp'] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];
