// "Search Error Records": a QuickPick that asks the server as the user types (exact code / id /
// slug, then pattern matches, then fuzzy tokens; the server ranks) and opens the chosen record.
// Before anything is typed it lists the errors seen recently in logs, output panels and terminals
// (the server's answer to an empty query).
import * as vscode from 'vscode';
import { Commands, SearchHitDto, SearchParams, SearchRequest } from '../../server/src/protocol';
import { trackPicker } from './picker';
import { openRecordView } from './recordView';
import type { Services } from './services';

const DEBOUNCE_MS = 80;
const LIMIT = 50;

interface HitItem extends vscode.QuickPickItem {
  hit: SearchHitDto;
}

export function hitDetail(hit: Pick<SearchHitDto, 'errorClass' | 'httpStatus' | 'errorCode' | 'severity'>): string {
  const parts: string[] = [];
  if (hit.errorClass) parts.push(hit.errorClass);
  if (hit.httpStatus !== null && hit.httpStatus !== undefined) parts.push(`HTTP ${hit.httpStatus}`);
  if (hit.errorCode) parts.push(`code ${hit.errorCode}`);
  if (hit.severity) parts.push(hit.severity);
  return parts.join(' · ');
}

function oneLine(text: string, max = 160): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function toItem(hit: SearchHitDto): HitItem {
  const seen = hit.kind === 'recent' ? `seen in ${hit.seenIn ?? 'this session'}` : '';
  return {
    label: oneLine(hit.errorMessage),
    description: hit.repo,
    detail: [seen, hitDetail(hit)].filter(Boolean).join(' · '),
    alwaysShow: true, // the server already filtered and ranked; VS Code must not filter again
    hit,
  };
}

/**
 * Shows the picker; resolves to the id of the record the user opened, or undefined.
 * `initial` pre-fills the input (the same path as typing: the value change triggers the query).
 */
export function searchRecords(s: Services, initial?: string, open = true): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick<HitItem>();
  qp.title = 'Search Error Records';
  qp.placeholder = 'Type an error message, code, class or id';
  const RECENT_PLACEHOLDER = 'Type an error message, code, class or id (below: errors seen recently)';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  const tracking = trackPicker(s, 'search', qp);
  let timer: NodeJS.Timeout | undefined;
  let cts: vscode.CancellationTokenSource | undefined;

  const query = (value: string): void => {
    if (timer) clearTimeout(timer);
    cts?.cancel();
    qp.busy = true;
    tracking.sync();
    timer = setTimeout(() => {
      const mine = new vscode.CancellationTokenSource();
      cts = mine;
      const empty = !value.trim();
      s.server
        .request<SearchParams, SearchHitDto[]>(SearchRequest.type, { query: empty ? '' : value, limit: LIMIT }, mine.token)
        .then(
          (hits) => {
            if (mine.token.isCancellationRequested) return;
            const items: (HitItem | vscode.QuickPickItem)[] = hits.map(toItem);
            if (empty && items.length) items.unshift({ label: 'recently seen', kind: vscode.QuickPickItemKind.Separator });
            qp.placeholder = empty && hits.length ? RECENT_PLACEHOLDER : 'Type an error message, code, class or id';
            qp.items = items as HitItem[];
            qp.busy = false;
            tracking.sync();
          },
          (e: unknown) => {
            if (mine.token.isCancellationRequested) return;
            s.output.warn(`search failed: ${String(e)}`);
            qp.items = [];
            qp.busy = false;
            tracking.sync();
          },
        );
    }, DEBOUNCE_MS);
  };

  return new Promise<string | undefined>((resolve) => {
    let chosen: SearchHitDto | undefined;
    qp.onDidChangeValue(query);
    qp.onDidAccept(() => {
      chosen = (qp.selectedItems[0] ?? qp.activeItems[0])?.hit;
      if (chosen) qp.hide();
    });
    qp.onDidHide(() => {
      if (timer) clearTimeout(timer);
      cts?.cancel();
      tracking.dispose();
      qp.dispose();
      if (chosen && open) {
        openRecordView({ id: chosen.id }, s.output, chosen).then(
          () => resolve(chosen?.id),
          (e: unknown) => {
            s.output.error(`opening record ${chosen?.id} failed: ${String(e)}`);
            resolve(chosen?.id);
          },
        );
      } else resolve(chosen?.id);
    });
    qp.show();
    if (initial) qp.value = initial; // setting value programmatically does not fire onDidChangeValue
    query(initial ?? ''); // empty: the recent errors
  });
}

export function registerSearch(s: Services): void {
  s.context.subscriptions.push(
    vscode.commands.registerCommand(Commands.search, (arg?: unknown) => {
      const initial = typeof arg === 'string' ? arg : isQueryArg(arg) ? arg.query : undefined;
      return searchRecords(s, initial);
    }),
  );
}

function isQueryArg(v: unknown): v is { query: string } {
  return typeof v === 'object' && v !== null && typeof (v as { query?: unknown }).query === 'string';
}
