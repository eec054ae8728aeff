// Command links and code-action commands, built by the server only. Record text never becomes
// a command: arguments are JSON built here, percent-encoded (including the characters that could
// close a Markdown link), and only the extension's own commands (protocol.ts Commands) are used.
import type { ErrorRecord } from '../../core/record';
import { Commands, CaptureDto, InsertSnippetArgs, NearDto, OpenRecordArgs } from '../../protocol';

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

/**
 * The hover's action links (right under its title): the actions that apply to this record, as
 * command links. `raiseSite`: the raise site resolves (the link is left out otherwise); `near`: the
 * log line the record matched on.
 */
export function hoverActions(
  record: ErrorRecord,
  captures: CaptureDto[],
  matchedText: string | undefined,
  opts: { raiseSite: boolean; near?: NearDto },
): string {
  const id = record.id;
  const open: OpenRecordArgs = { id, captures, ...(matchedText !== undefined ? { matchedText } : {}) };
  const parts: string[] = [];
  if (record.tryCatchPattern) {
    const a: InsertSnippetArgs = { id, kind: 'tryCatch' };
    parts.push(link('Insert try/catch', 'Surround the statement at the cursor of a code editor', Commands.insertSnippet, [a]));
  }
  if (record.validationCode) {
    const a: InsertSnippetArgs = { id, kind: 'validation' };
    parts.push(link('Insert validation', 'Insert the validation snippet into a code editor', Commands.insertSnippet, [a]));
  }
  parts.push(link('Open full explanation', 'Open the record view', Commands.openRecord, [open]));
  parts.push(link('Copy', 'Copy the explanation as Markdown', Commands.copyExplanation, [open]));
  if (opts.raiseSite) {
    const args: OpenRecordArgs = { id, ...(opts.near ? { near: opts.near } : {}) };
    parts.push(link('Go to raise site', 'Open where this error is raised', Commands.goToRaiseSite, [args]));
  }
  return parts.join(' · ');
}

/** One line naming the other records that match the same span, each linked to its record view. */
export function otherMatches(records: { record: ErrorRecord; label: string }[], escape: (s: string) => string): string {
  const links = records.map((o) => link(escape(o.label), 'Open the record view', Commands.openRecord, [{ id: o.record.id } satisfies OpenRecordArgs]));
  return `Also matching: ${links.join(' · ')}`;
}
