// Small programs that fail inside packages of this repository's node_modules (run by
// make_node_stacks.cjs). Each case: [name, form, body]; `body` is the body of `main()` (an async
// function when the form is 'rejection'). Forms:
//   uncaught   thrown out of the program: Node prints the source line, a caret, the stack, "Node.js vN"
//   rejection  an unhandled promise rejection (same printing, from an async function)
//   console    caught and printed with console.error(err) (util.inspect: stack + own properties + [cause])
//   logger     caught and logged as `${timestamp} error: ${err.stack}` (winston/pino-style text logs)
//   syslog     caught and printed with console.error(err), every line prefixed by the journal ("Dec  1 …: ")
//   ansi       caught and printed with util.inspect(err, { colors: true }) (Node's own colouring)
'use strict';

module.exports = [
  ['picomatch_empty_pattern', 'uncaught', `
const picomatch = require('picomatch');
picomatch('');
`],
  ['picomatch_too_long', 'console', `
const picomatch = require('picomatch');
picomatch('a'.repeat(70000));
`],
  ['micromatch_nested_picomatch', 'logger', `
const micromatch = require('micromatch');
micromatch.isMatch('src/index.ts', '');
`],
  ['commander_missing_argument', 'uncaught', `
const { Command } = require('commander');
new Command('deploy').exitOverride().argument('<environment>').action(() => {}).parse(['node', 'deploy']);
`],
  ['commander_unknown_option', 'logger', `
const { Command } = require('commander');
new Command('build').exitOverride().option('-w, --watch').parse(['node', 'build', '--wacth']);
`],
  ['fill_range_invalid', 'uncaught', `
const fill = require('fill-range');
fill('1', 'aa', { strictRanges: true });
`],
  ['fill_range_step', 'syslog', `
const fill = require('fill-range');
fill('1', '10', 'x', { strictRanges: true });
`],
  ['to_regex_range_nan', 'console', `
const toRegexRange = require('to-regex-range');
toRegexRange('a', '9');
`],
  ['braces_range_limit', 'ansi', `
const braces = require('braces');
braces.expand('{1..100000}', { rangeLimit: 1000 });
`],
  ['semver_invalid_version', 'uncaught', `
const semver = require('semver');
new semver.SemVer('v1.x-beta');
`],
  ['semver_invalid_comparator', 'logger', `
const semver = require('semver');
new semver.Range('>=1.0.0 <');
`],
  ['minimatch_too_long', 'console', `
const { minimatch } = require('minimatch');
minimatch('src/a.ts', '*'.repeat(70000));
`],
  ['ajv_invalid_schema', 'uncaught', `
const Ajv = require('ajv');
new Ajv().compile({ type: 'strnig' });
`],
  ['ajv_strict_keyword', 'syslog', `
const Ajv = require('ajv');
new Ajv().compile({ type: 'object', requried: ['id'] });
`],
  ['ajv_missing_ref', 'ansi', `
const Ajv = require('ajv');
new Ajv().compile({ $ref: '#/definitions/user' });
`],
  ['js_yaml_flow', 'uncaught', `
const yaml = require('js-yaml');
yaml.load('services: [web, db\\n');
`],
  ['js_yaml_dump_function', 'console', `
const yaml = require('js-yaml');
yaml.dump({ onStart() {} });
`],
  ['json5_bad_char', 'logger', `
const JSON5 = require('json5');
JSON5.parse('{port: 8080,,}');
`],
  ['parse_json_esm', 'rejection', `
const { default: parseJson } = await import('parse-json');
parseJson('{"name": "app",}', 'package.json');
`],
  ['markdown_it_preset', 'uncaught', `
const MarkdownIt = require('markdown-it');
new MarkdownIt('github');
`],
  ['ms_empty', 'syslog', `
const ms = require('ms');
ms('');
`],
  ['jsonwebtoken_malformed', 'logger', `
const jwt = require('jsonwebtoken');
jwt.verify('not.a.token', 'secret');
`],
  ['jsonwebtoken_expired', 'console', `
const jwt = require('jsonwebtoken');
const token = jwt.sign({ sub: 'u1', exp: 1700000000 }, 'secret', { noTimestamp: true });
jwt.verify(token, 'secret', { clockTimestamp: 1796115601 });
`],
  ['iconv_unknown_encoding', 'uncaught', `
const iconv = require('iconv-lite');
iconv.decode(Buffer.from('caf\\xe9'), 'latin-9x');
`],
  ['esbuild_syntax_error', 'console', `
const esbuild = require('esbuild');
esbuild.transformSync('const x: number = ;', { loader: 'ts', sourcefile: 'src/config.ts' });
`],
  ['fast_glob_empty', 'ansi', `
const fg = require('fast-glob');
fg.sync('');
`],
  ['qs_decoder', 'uncaught', `
const qs = require('qs');
qs.parse('a=1&b=2', { decoder: 'utf8' });
`],
  ['fs_extra_copy_missing', 'logger', `
const fse = require('fs-extra');
fse.copySync('/srv/app/uploads/missing.png', '/tmp/ee-corpus/node/out.png');
`],
  ['glob_options', 'syslog', `
const { globSync } = require('glob');
globSync('**/*.log', { absolute: true, withFileTypes: true });
`],
  ['jsonc_overlapping_edit', 'console', `
const jsonc = require('jsonc-parser');
jsonc.applyEdits('{"a": 1}', [{ offset: 1, length: 3, content: 'x' }, { offset: 2, length: 1, content: 'y' }]);
`],
  ['normalize_package_data', 'uncaught', `
const normalize = require('normalize-package-data');
normalize({ name: 42, version: '1.0.0' }, () => {}, true);
`],
  ['undici_refused', 'rejection', `
const { request } = require('undici');
await request('http://127.0.0.1:9/health');
`],
  ['fetch_failed_cause', 'console', `
await fetch('http://127.0.0.1:9/api/orders');
`],
  ['typescript_bad_tsconfig', 'logger', `
const ts = require('typescript');
const r = ts.parseConfigFileTextToJson('tsconfig.json', '{"compilerOptions": {"target": }');
throw new Error('tsconfig.json: ' + ts.flattenDiagnosticMessageText(r.error.messageText, '\\n'));
`],
  ['xml2js_unclosed', 'rejection', `
const xml2js = require('xml2js');
await xml2js.parseStringPromise('<config><item>');
`],
];
