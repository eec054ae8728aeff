// What a failed dataset download tells the user (no `vscode` import; unit-tested): a sentence a
// person understands instead of "…/data/manifest.json: ENOTFOUND", and the buttons that help.

export const RETRY = 'Retry';
export const OPEN_SETTINGS = 'Open Settings';

/** Node's network error codes, as the download reports them ("<url>: ENOTFOUND"). */
const OFFLINE = /\b(ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ENETDOWN)\b/;
const REFUSED = /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ESOCKETTIMEDOUT|timed out|connection closed before the end)\b/i;
const HTTP = /\bHTTP (\d{3})\b/;

function host(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === 'file:' ? u.pathname : u.host;
  } catch {
    return url;
  }
}

/**
 * The message for a failed sync. `reason`: the server's DatasetSyncResult.reason; `url`:
 * errorExplainer.dataset.url. What is kept is said too (the cache, or nothing downloaded).
 */
export function datasetFailureMessage(reason: string, url: string): { text: string; buttons: string[] } {
  const where = host(url);
  const keeping = /keeping the cached dataset/.test(reason) ? 'The cached dataset stays in use.' : 'Nothing was downloaded; your own and the bundled records keep working.';
  const code = OFFLINE.exec(reason)?.[1] ?? REFUSED.exec(reason)?.[1];
  let what: string;
  if (OFFLINE.test(reason)) what = `could not reach ${where}: no network connection, or the name does not resolve (${code}).`;
  else if (REFUSED.test(reason)) what = `the connection to ${where} failed (${code}). The server may be down, or a proxy or firewall blocks it.`;
  else if (HTTP.test(reason)) what = `${where} answered HTTP ${HTTP.exec(reason)![1]}: is errorExplainer.dataset.url right?`;
  else if (/HTML page/.test(reason)) what = `${where} sent a web page instead of the dataset (a captive portal, or a wrong errorExplainer.dataset.url).`;
  else what = `downloading the ErrLookup dataset failed: ${reason.replace(/; keeping the cached dataset.*$/, '')}.`;
  return { text: `Error Explainer: ${what} ${keeping}`, buttons: [RETRY, OPEN_SETTINGS] };
}
