#!/usr/bin/env bash
# Copy real logs of this machine that no error record explains into test/fixtures/real/unrelated-logs/,
# each trimmed to its last MAX_KB kilobytes (at a line boundary). Needs no network.
#
#   bash scripts/real-corpora/make_unrelated_logs.sh [--tests] [--e2e] [--postgres] [OUT_DIR]
#
#   (always)    /var/log/dpkg.log, apt/history.log, apt/term.log, apt/eipp.log.xz (decompressed),
#               alternatives.log, fontconfig.log; npm's own debug logs (~/.npm/_logs); output of
#               commands that need no network (git, apt-get -s, apt-cache policy, dpkg -l, npm ls,
#               an offline `npm install --dry-run` of this repository's manifest in a scratch folder)
#   --tests     run `SKIP_E2E=1 npm test` here and keep its output (several minutes)
#   --e2e       run `E2E_KEEP_HOME=1 E2E_ONLY=smoke bash test/e2e/run.sh` and keep the code-server
#               logs of the home it keeps (needs the code-server install of `npm test`)
#   --postgres  start a throw-away PostgreSQL cluster (initdb in a scratch folder, as user postgres),
#               run a few failing statements through psql, stop it, keep the server log
# Logs already in OUT_DIR from an earlier run with these flags are kept when a flag is not given.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
tests=0 e2e=0 pg=0 out=test/fixtures/real/unrelated-logs
for a in "$@"; do
  case "$a" in
    --tests) tests=1 ;;
    --e2e) e2e=1 ;;
    --postgres) pg=1 ;;
    -*) echo "unknown option $a" >&2; exit 2 ;;
    *) out=$a ;;
  esac
done
MAX_KB=${MAX_KB:-200}
WORK=/tmp/ee-corpus/unrelated
rm -rf "$WORK"; mkdir -p "$WORK" "$out"

# keep the last MAX_KB KB of a file, starting at a whole line; report what is written
keep() { # keep SRC NAME
  local src=$1 name=$2 dst="$out/$2"
  if [ ! -s "$src" ]; then echo "  absent or empty: $src" >&2; return 0; fi
  local size; size=$(stat -c %s "$src")
  if [ "$size" -gt $((MAX_KB * 1024)) ]; then
    tail -c $((MAX_KB * 1024)) "$src" | tail -n +2 > "$dst"
  else
    cp "$src" "$dst"
  fi
  printf '  %-34s %8d bytes (of %d) from %s\n' "$name" "$(stat -c %s "$dst")" "$size" "$src" >&2
}

echo "system logs:" >&2
keep /var/log/dpkg.log dpkg.log
keep /var/log/apt/history.log apt-history.log
keep /var/log/apt/term.log apt-term.log
keep /var/log/alternatives.log alternatives.log
keep /var/log/fontconfig.log fontconfig.log
if [ -s /var/log/apt/eipp.log.xz ]; then xz -dc /var/log/apt/eipp.log.xz > "$WORK/eipp.log"; keep "$WORK/eipp.log" apt-eipp.log; fi

echo "npm debug logs:" >&2
if ls "$HOME"/.npm/_logs/*.log >/dev/null 2>&1; then
  for f in "$HOME"/.npm/_logs/*.log; do printf '==> %s <==\n' "$(basename "$f")"; cat "$f"; done > "$WORK/npm-debug.log"
  keep "$WORK/npm-debug.log" npm-debug-logs.log
fi

echo "command output (no network):" >&2
{ git -C "$ROOT" log --stat --format=fuller -n 150 2>&1 || true; } > "$WORK/git-log.txt"; keep "$WORK/git-log.txt" git-log-stat.log
{
  echo '$ git fsck --no-progress'; git -C "$ROOT" fsck --no-progress 2>&1 || true
  echo '$ git count-objects -v'; git -C "$ROOT" count-objects -v 2>&1 || true
  echo '$ git branch -a -vv'; git -C "$ROOT" branch -a -vv 2>&1 || true
  echo '$ git worktree list'; git -C "$ROOT" worktree list 2>&1 || true
  echo '$ git show --stat HEAD~3'; git -C "$ROOT" show --stat HEAD~3 2>&1 || true
  echo '$ git checkout no-such-branch'; git -C "$ROOT" checkout no-such-branch 2>&1 || true
  echo '$ git rev-parse v999'; git -C "$ROOT" rev-parse v999 2>&1 || true
} > "$WORK/git-misc.txt"; keep "$WORK/git-misc.txt" git-commands.log
{
  echo '$ apt-get -s install chromium postgresql-contrib'; apt-get -s install chromium postgresql-contrib 2>&1 || true
  echo '$ apt-get -s install no-such-package-xyz'; apt-get -s install no-such-package-xyz 2>&1 || true
  echo '$ apt-cache policy python3.11 nodejs chromium'; apt-cache policy python3.11 nodejs chromium 2>&1 || true
  echo '$ apt-get check'; apt-get check 2>&1 || true
} > "$WORK/apt.txt"; keep "$WORK/apt.txt" apt-get-simulate.log
{ dpkg -l 2>&1 || true; } > "$WORK/dpkg-l.txt"; keep "$WORK/dpkg-l.txt" dpkg-l.log
{ (cd "$ROOT" && npm ls --all 2>&1) || true; } > "$WORK/npm-ls.txt"; keep "$WORK/npm-ls.txt" npm-ls.log
mkdir -p "$WORK/npm-dry"; cp package.json package-lock.json "$WORK/npm-dry/"
{ (cd "$WORK/npm-dry" && npm install --dry-run --offline --no-audit --no-fund --loglevel=http 2>&1) || true; } > "$WORK/npm-install.txt"
keep "$WORK/npm-install.txt" npm-install-dry-run.log

if [ "$tests" = 1 ]; then
  echo "SKIP_E2E=1 npm test (takes minutes):" >&2
  (SKIP_E2E=1 npm test > "$WORK/npm-test.log" 2>&1) || true
  keep "$WORK/npm-test.log" npm-test.log
fi

if [ "$e2e" = 1 ]; then
  echo "e2e smoke with E2E_KEEP_HOME=1:" >&2
  (E2E_KEEP_HOME=1 E2E_ONLY=smoke bash test/e2e/run.sh > "$WORK/e2e-run.log" 2>&1) || true
  keep "$WORK/e2e-run.log" e2e-smoke-run.log
  home=$(grep -o '\[harness\] kept .*' "$WORK/e2e-run.log" | tail -1 | sed 's/\[harness\] kept //')
  if [ -n "$home" ] && [ -d "$home" ]; then
    # code-server's own logs: the server's, the extension host's, the exthost output channels
    find "$home" -name '*.log' -type f | sort > "$WORK/cs-logs.txt"
    while IFS= read -r f; do printf '==> %s <==\n' "${f#"$home"/}"; cat "$f"; done < "$WORK/cs-logs.txt" > "$WORK/code-server.log"
    keep "$WORK/code-server.log" code-server.log
    rm -rf "$home"
  else
    echo "  no kept home found in the e2e output" >&2
  fi
fi

if [ "$pg" = 1 ]; then
  echo "throw-away PostgreSQL:" >&2
  bin=$(dirname "$(readlink -f "$(command -v postgres)")")
  pgdir=$WORK/pg; mkdir -p "$pgdir"; chown postgres "$pgdir"
  runuser -u postgres -- "$bin/initdb" -D "$pgdir/data" -A trust -U postgres > "$WORK/initdb.txt" 2>&1
  runuser -u postgres -- "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -o "-k $pgdir -p 54329 -c listen_addresses=''" -w start > /dev/null
  psqlx() { runuser -u postgres -- psql -h "$pgdir" -p 54329 -X "$@" 2>&1 || true; }
  {
    psqlx -d postgres -c 'create table jobs (id int primary key, name text not null)'
    psqlx -d postgres -c "insert into jobs values (1, 'a'), (1, 'b')"
    psqlx -d postgres -c 'select * from job'
    psqlx -d postgres -c 'select 1/0'
    psqlx -d postgres -c 'selec 1'
    psqlx -d postgres -c "insert into jobs values (2, null)"
    psqlx -d postgres -c "select 'x'::int"
    psqlx -d no_such_db -c 'select 1'
    psqlx -U no_such_role -d postgres -c 'select 1'
    psqlx -d postgres -c 'begin; lock table jobs; select pg_sleep(0); commit;'
    psqlx -d postgres -c 'drop table jobs'
  } > "$WORK/psql.txt"
  runuser -u postgres -- "$bin/pg_ctl" -D "$pgdir/data" -m fast -w stop > /dev/null
  keep "$pgdir/server.log" postgres-server.log
  keep "$WORK/psql.txt" psql-client.log
  cat "$WORK/initdb.txt" > "$WORK/initdb.log"; keep "$WORK/initdb.log" postgres-initdb.log
fi
echo "total: $(du -sk "$out" | cut -f1) KB in $out" >&2
