// node:v8 in the web-worker bundles: only the compiled index cache (core/indexCache) serializes
// with it, and the web server has no index cache (records come from the client; server.ts gives
// it no cache folder), so both fail as the other file-system shims do.
import { stub } from './unavailable';

export const serialize = stub('v8.serialize');
export const deserialize = stub('v8.deserialize');
