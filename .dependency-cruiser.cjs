// The layering rules (issue 16 item 7), checked by `npm run deps` in every test run:
// the core imports no editor module, the client reaches the server only through protocol.ts and the
// core's pure helpers, nothing imports back up, and there are no import circles.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'server/src/core is plain TypeScript: no vscode, no vscode-languageserver, no server or client code',
      severity: 'error',
      from: { path: '^server/src/core/' },
      to: { path: ['^node_modules/(vscode|vscode-languageserver|vscode-languageclient|vscode-languageserver-textdocument)/', '^server/src/(server|cli)/', '^client/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-is-pure-types',
      comment: 'not even types from the editor: the core is tested without it',
      severity: 'error',
      from: { path: '^server/src/core/' },
      to: { path: ['^node_modules/@types/vscode/', '^node_modules/(vscode|vscode-languageserver)/'] },
    },
    {
      name: 'client-through-protocol',
      comment: 'the client imports server code only through protocol.ts and the core pure helpers',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^server/', pathNot: ['^server/src/protocol\\.ts$', '^server/src/core/'] },
    },
    {
      name: 'server-not-client',
      comment: 'the server and the CLI never import the client',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^client/' },
    },
    {
      name: 'cli-not-language-server',
      comment: 'the CLI is the core plus files and a terminal: it never imports the language server wiring',
      severity: 'error',
      from: { path: '^server/src/cli/' },
      to: { path: ['^server/src/server/', '^node_modules/vscode-languageserver'] },
    },
    {
      name: 'no-circular',
      comment: 'no import circles (type-only ones included: they are the seams that get in the way)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: ['\\.generated\\.ts$'] },
  },
};
