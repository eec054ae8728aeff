// node:zlib in the web-worker bundles: the client decompresses gzip record files
// (DecompressionStream) before they reach the worker, so these are never reached.
import { stub } from './unavailable';

export const gunzip = stub('zlib.gunzip');
export const gunzipSync = stub('zlib.gunzipSync');
export const createGunzip = stub('zlib.createGunzip');
export const gzipSync = stub('zlib.gzipSync');
