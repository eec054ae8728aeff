// QuickPick helpers that keep the extension API's picker state in sync (the e2e tests read it to
// know when the real picker shows its items before they accept one through VS Code's commands).
import * as vscode from 'vscode';
import type { Services } from './services';

export interface PickerTracking extends vscode.Disposable {
  /** Call after changing the picker's items or busy flag. */
  sync(): void;
}

export function trackPicker<T extends vscode.QuickPickItem>(s: Services, kind: string, qp: vscode.QuickPick<T>): PickerTracking {
  const state = { kind, value: qp.value, busy: qp.busy, items: [] as string[], generation: 0, active: undefined as string | undefined };
  s.state.picker = state;
  const sync = (): void => {
    state.value = qp.value;
    state.busy = qp.busy;
    state.items = qp.items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).map((i) => i.label);
    state.generation++;
  };
  sync();
  // The workbench reports the active item once it has rendered the list (and after every move), so
  // tests can wait for the real picker instead of racing it.
  const subs = [qp.onDidChangeValue(sync), qp.onDidChangeActive((items) => (state.active = items[0]?.label))];
  return {
    sync,
    dispose: () => {
      for (const d of subs) d.dispose();
      if (s.state.picker === state) s.state.picker = undefined;
    },
  };
}

/** A one-shot pick through createQuickPick (tracked), resolving to the accepted item. */
export function pickOne<T extends vscode.QuickPickItem>(
  s: Services,
  kind: string,
  items: T[],
  options: { title?: string; placeholder?: string; matchOnDescription?: boolean; matchOnDetail?: boolean } = {},
): Promise<T | undefined> {
  const qp = vscode.window.createQuickPick<T>();
  qp.title = options.title;
  qp.placeholder = options.placeholder;
  qp.matchOnDescription = options.matchOnDescription ?? true;
  qp.matchOnDetail = options.matchOnDetail ?? false;
  qp.items = items;
  const tracking = trackPicker(s, kind, qp);
  return new Promise<T | undefined>((resolve) => {
    let result: T | undefined;
    qp.onDidAccept(() => {
      result = qp.selectedItems[0] ?? qp.activeItems[0];
      qp.hide();
    });
    qp.onDidHide(() => {
      tracking.dispose();
      qp.dispose();
      resolve(result);
    });
    qp.show();
  });
}
