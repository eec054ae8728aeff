// Titles of record views (no `vscode` import; unit-tested): the tab reads
// "Preview MMError: encode metadata not ready", not the record's hex id.

const MAX_TITLE = 72;

/** "Class: message" shortened to one line of at most 72 characters; the id when there is nothing else. */
export function recordTitle(r: { id: string; errorClass?: string | null; errorMessage?: string | null }): string {
  const msg = (r.errorMessage ?? '').replace(/\s+/g, ' ').trim();
  const cls = (r.errorClass ?? '').trim();
  let t = cls && msg && !msg.startsWith(cls) ? `${cls}: ${msg}` : msg || cls || r.id;
  // a file name on every platform VS Code labels: no path separators, control characters or the
  // characters Windows forbids (the title is the virtual document's file name)
  t = t.replace(/[\u0000-\u001f\u007f-\u009f/\\<>"|?*]/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > MAX_TITLE) t = `${t.slice(0, MAX_TITLE - 1).trimEnd()}…`;
  return t.replace(/[. ]+$/, '') || r.id;
}
