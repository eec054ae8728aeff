// Command links and code-action commands, built by the server only. Record text never becomes
// a command: arguments are JSON built here, percent-encoded (including the characters that could
// close a Markdown link), and only the extension's own commands (protocol.ts Commands) are used.
import type { ErrorRecord } from '../core/record';
import { Commands, CaptureDto, InsertSnippetArgs, OpenRecordArgs } from '../protocol';

/** `command:<id>?<encoded JSON array of args>` as VS Code expects in trusted Markdown. */
export function commandUri(command: string, args: unknown[]): string {
  const json = encodeURIComponent(JSON.stringify(args)).replace(
    /[()'!*~]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
  return `command:${command}?${json}`;
}

function link(label: string, title: string, command: string, args: unknown[]): string {
  return `[${label}](${commandUri(command, args)} "${title}")`;
}

/** Footer of a hover: the actions that apply to this record, as command links. */
export function hoverFooter(record: ErrorRecord, captures: CaptureDto[], matchedText: string | undefined): string {
  const id = record.id;
  const open: OpenRecordArgs = { id, captures, ...(matchedText !== undefined ? { matchedText } : {}) };
  const parts: string[] = [];
  if (record.tryCatchPattern) {
    const a: InsertSnippetArgs = { id, kind: 'tryCatch' };
    parts.push(link('Insert try/catch', 'Insert the handling snippet into the last code editor', Commands.insertSnippet, [a]));
  }
  if (record.validationCode) {
    const a: InsertSnippetArgs = { id, kind: 'validation' };
    parts.push(link('Insert validation', 'Insert the validation snippet into the last code editor', Commands.insertSnippet, [a]));
  }
  parts.push(link('Open full explanation', 'Open the record view', Commands.openRecord, [open]));
  parts.push(link('Copy', 'Copy the explanation as Markdown', Commands.copyExplanation, [open]));
  if (record.filePath || record.githubUrl) {
    parts.push(link('Go to raise site', 'Open where this error is raised', Commands.goToRaiseSite, [{ id }]));
  }
  return parts.join(' · ');
}
