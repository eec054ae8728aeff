// Text of the records status item (no `vscode` import; unit-tested): it says what it is
// ("$(book) 2,506 error records", tooltip "Error Explainer: 2,506 error records loaded ...").
import type { StatusResult } from '../../server/src/protocol';

const count = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

export interface RecordsStatusText {
  /** Status bar text (with $(icon) syntax). */
  text: string;
  /** First line of the tooltip and the title of the item's menu. */
  title: string;
  /** Further tooltip lines, plain text. */
  details: string[];
}

export function recordsStatusText(st: StatusResult | undefined, trusted: boolean): RecordsStatusText {
  const restricted = trusted && (st?.workspaceTrusted ?? true) ? '' : ' (restricted)';
  const restrictedLine = 'Restricted mode: workspace records and workspace record paths are ignored until the folder is trusted.';
  if (!st) {
    return {
      text: `$(book) Error Explainer${restricted}`,
      title: 'Error Explainer',
      details: ['Error records load with the first log file, terminal error or command.', ...(restricted ? [restrictedLine] : [])],
    };
  }
  const building = st.sources.some((src) => src.building === true);
  const details: string[] = [];
  for (const src of st.sources) details.push(`${src.origin}: ${plural(src.records, 'record')} from ${src.path}${src.building ? ' (indexing in the background: these match once it is done)' : ''}`);
  if (st.problems) details.push(`${plural(st.problems, 'problem')} in record files (see the Problems panel)`);
  if (restricted) details.push(restrictedLine);
  details.push(`loaded in ${Math.round(st.timings.loadMs)} ms, indexed in ${Math.round(st.timings.indexMs)} ms`);
  const problems = st.problems ? ` $(warning) ${count(st.problems)}` : '';
  return {
    text: `$(book) ${plural(st.records, 'error record')}${building ? ' $(sync~spin)' : ''}${problems}${restricted}`,
    title: `Error Explainer: ${plural(st.records, 'error record')} loaded`,
    details,
  };
}
