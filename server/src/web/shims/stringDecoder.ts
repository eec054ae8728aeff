// node:string_decoder for the web-worker bundles (UTF-8 only, on TextDecoder's streaming mode).
export class StringDecoder {
  private readonly decoder: InstanceType<typeof TextDecoder>;
  constructor(encoding = 'utf8') {
    if (!/^utf-?8$/i.test(encoding)) throw new Error(`StringDecoder: only UTF-8 in the web worker (got ${encoding})`);
    this.decoder = new TextDecoder('utf-8');
  }
  write(chunk: Uint8Array): string {
    return this.decoder.decode(chunk, { stream: true });
  }
  end(chunk?: Uint8Array): string {
    return (chunk ? this.decoder.decode(chunk, { stream: true }) : '') + this.decoder.decode();
  }
}
