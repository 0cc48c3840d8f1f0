#!/usr/bin/env bash
# Installs the peers of `simreel compare` from their registries (not needed by CI or the tests):
# odiff and pixelmatch from npm into scripts/peers/compare/node_modules, dify from crates.io
# into scripts/peers/.work/dify, and Pillow for the driver script into scripts/peers/.work/venv.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$HERE/../.work"
mkdir -p "$WORK"
(cd "$HERE" && npm install --silent)
[ -x "$WORK/dify/bin/dify" ] || CARGO_TARGET_DIR="$WORK/dify-target" cargo install --locked dify@0.8.0 --root "$WORK/dify"
[ -x "$WORK/venv/bin/python3" ] || { python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install --quiet pillow; }
echo "run: $WORK/venv/bin/python3 $HERE/compare_peers.py CHECKOUT"
