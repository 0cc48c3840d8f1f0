#!/usr/bin/env bash
# Run the three anchor benchmarks one after another (never in parallel: they
# time wall clock on a 2-core machine). Extra arguments go to every script,
# e.g. `bash scripts/peers/run_all.sh --no-install`.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rc=0
for s in mc_peers gif_peers png_peers; do
  echo "== $s" >&2
  python3 "$HERE/$s.py" "$@" || rc=1
done
exit $rc
