// node:http, node:https and node:stream in the web-worker bundles: only the dataset download and
// the log-file scan use them, and neither runs in the web build (the server gets no dataset
// cache folder there, and the client offers no file scan).
import { stub } from './unavailable';

export const get = stub('http.get');
export const request = stub('http.request');
export class Agent {
  constructor() {
    stub('http.Agent')();
  }
}
export class Readable {
  static from(): never {
    return stub('stream.Readable.from')();
  }
}
