#!/usr/bin/env bash
# Makes sure everything the tests need is on this machine, installing what
# is missing: Chromium and fonts, poppler-utils (pdfinfo) and Prometheus
# (promtool, prometheus) from Debian; MinIO and Helm built with `go install`
# into a cache directory that survives between runs.
#
#   .ci/deps.sh            everything the tests need
#   .ci/deps.sh bench      plus what `make bench` needs
set -euo pipefail

CACHE_BIN="${GLIMPSE_CACHE:-$HOME/.cache/glimpse}/bin"
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
HELM_VERSION="v3.22.0"
mkdir -p "$CACHE_BIN"

say() { printf 'deps: %s\n' "$*" >&2; }

apt_updated=""
apt_install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "missing: $*. Install them with: sudo apt-get install -y $*"
    exit 1
  fi
  if [ -z "$apt_updated" ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

need_pkgs=()
if [ -z "${GLIMPSE_CHROME_PATH:-}" ] && [ ! -x /usr/lib/chromium/chromium ] && ! command -v chromium >/dev/null; then
  need_pkgs+=(chromium)
fi
[ -d /usr/share/fonts/truetype/liberation ] || need_pkgs+=(fonts-liberation)
[ -d /usr/share/fonts/truetype/noto ] || need_pkgs+=(fonts-noto-color-emoji)
command -v pdfinfo >/dev/null || need_pkgs+=(poppler-utils)
command -v promtool >/dev/null || need_pkgs+=(prometheus)
if [ "${1:-}" = bench ]; then
  command -v wrk >/dev/null || need_pkgs+=(wrk)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  apt_install "${need_pkgs[@]}"
fi

go_tool() { # name module version
  local name=$1 module=$2 version=$3 stamp="$CACHE_BIN/.$1.version"
  if [ -x "$CACHE_BIN/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
    return
  fi
  say "building $name $version with go install (cached in $CACHE_BIN; takes a few minutes once)"
  GOBIN="$CACHE_BIN" GOFLAGS=-buildvcs=false go install "$module@$version"
  echo "$version" > "$stamp"
}
go_tool minio github.com/minio/minio "$MINIO_VERSION"
go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
say "ready"
