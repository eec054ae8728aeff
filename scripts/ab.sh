#!/bin/bash
# Interleaved warm runs of several builds of the CLI, each with its own index cache (the first run
# of each, which may build that cache, is dropped): wall and CPU best/median and peak RSS.
#   scripts/ab.sh RUNS "name=path/to/cli.js other=path/to/cli.js" CLI-ARGUMENTS...
# e.g. (a build frozen for comparison: cp -r dist /tmp/dist-before)
#   scripts/ab.sh 8 "before=/tmp/dist-before/cli.js after=dist/cli.js" scan --format count --no-bundled --records R.json LOG
# Each build's last output is left in ${AB_DIR:-/tmp/ab}/out-NAME.txt, to compare them.
set -euo pipefail
runs=$1; shift
builds=$1; shift
dir=${AB_DIR:-/tmp/ab}
mkdir -p "$dir"
for i in $(seq "$runs"); do
  for b in $builds; do
    name=${b%%=*}; cli=${b#*=}
    /usr/bin/time -f "$name %e %U %S %M" -o "$dir/time-$name.txt" env ERROR_EXPLAINER_INDEX_CACHE="$dir/cache-$name" node "$cli" "$@" > "$dir/out-$name.txt" || true
    cat "$dir/time-$name.txt"
  done
done | python3 -c '
import sys
runs = {}
for line in sys.stdin:
    name, wall, user, system, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(user) + float(system), int(rss)))
for name, xs in runs.items():
    xs = xs[1:] if len(xs) > 1 else xs
    wall = sorted(x[0] for x in xs); cpu = sorted(x[1] for x in xs); n = len(xs)
    print(f"{name}: {n} runs, wall best {wall[0]:.2f} s median {wall[n // 2]:.2f} s, CPU best {cpu[0]:.2f} s median {cpu[n // 2]:.2f} s, max RSS {max(x[2] for x in xs) // 1024} MB")
'
