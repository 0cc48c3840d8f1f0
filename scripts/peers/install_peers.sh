#!/usr/bin/env bash
# Install the peer tools the anchor benchmarks need, from the package registries
# only (Python packages via pip, Debian packages via apt-get, Rust crates via cargo). Idempotent: each
# step is skipped when its tool is already present, so re-running is cheap.
#
#   bash scripts/peers/install_peers.sh [mc|gif|png|web|all]   (default: all)
#
# A step that fails does not abort the others; its log tail is kept in
# scripts/peers/.work/install-<step>.log and the benchmark scripts record the peer as
# unavailable with that reason.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${BENCH_OUT:-$HERE}"
WORK="$OUT/.work"
[ "$OUT" = "$HERE" ] && export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HERE/rust-peers/target}" || export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$OUT/rust-target}"
mkdir -p "$WORK"
what="${1:-all}"
status=0

log() { echo "[install_peers] $*" >&2; }

pip_need() {
  # pip_need module:package ... -> installs packages whose module fails to import
  local missing=()
  for spec in "$@"; do
    local mod="${spec%%:*}" pkg="${spec#*:}"
    python3 -c "import $mod" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "pip install ${missing[*]}"
    # one package at a time so that one failure does not block the others
    for pkg in "${missing[@]}"; do
      python3 -m pip install --quiet "$pkg" >"$WORK/install-pip-$pkg.log" 2>&1 \
        || { log "pip install $pkg FAILED (see $WORK/install-pip-$pkg.log)"; status=1; }
    done
  fi
}

apt_updated=0
apt_need() {
  # apt_need check-command package
  local check="$1" pkg="$2"
  if ! eval "$check" >/dev/null 2>&1; then
    if [ "$apt_updated" = 0 ]; then
      log "apt-get update"
      apt-get update >"$WORK/install-apt-update.log" 2>&1 || true
      apt_updated=1
    fi
    log "apt-get install $pkg"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$pkg" \
      >"$WORK/install-apt-$pkg.log" 2>&1 \
      || { log "apt-get install $pkg FAILED (see $WORK/install-apt-$pkg.log)"; status=1; }
  fi
}

built=0
cargo_build_rust_peers() {
  [ "$built" = 1 ] && return 0
  built=1
  log "cargo build --release (scripts/peers/rust-peers)"
  cargo build --release --quiet --manifest-path "$HERE/rust-peers/Cargo.toml" \
    >"$WORK/install-rust-peers.log" 2>&1 \
    || { log "rust-peers build FAILED (see $WORK/install-rust-peers.log)"; status=1; }
}

case "$what" in
  mc|all)
    pip_need numpy:numpy skimage:scikit-image mcubes:pymcubes vtk:vtk
    cargo_build_rust_peers ;;
esac
case "$what" in
  gif|all)
    pip_need numpy:numpy PIL:pillow
    apt_need "command -v ffmpeg" ffmpeg
    # /usr/local/bin/convert may be a non-ImageMagick stand-in on these machines;
    # the benchmark always calls Debian's /usr/bin/convert.
    apt_need "/usr/bin/convert -version | grep -q ImageMagick" imagemagick
    if ! command -v gifski >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/gifski" ]; then
      log "cargo install gifski (builds from the Rust package registry; several minutes on 2 cores)"
      cargo install gifski >"$WORK/install-gifski.log" 2>&1 \
        || { log "cargo install gifski FAILED (see $WORK/install-gifski.log)"; status=1; }
    fi
    cargo_build_rust_peers ;;
esac
case "$what" in
  png|all)
    pip_need numpy:numpy PIL:pillow
    cargo_build_rust_peers ;;
esac
case "$what" in
  web|all)
    pip_need numpy:numpy PIL:pillow oxipng:pyoxipng
    apt_need "command -v ffmpeg" ffmpeg
    apt_need "command -v cwebp && command -v img2webp" webp
    apt_need "command -v avifenc" libavif-bin ;;
esac
exit $status
