#!/usr/bin/env bash
# Makes sure everything the tests need is on this machine, installing what
# is missing: Chromium and fonts, poppler-utils (pdfinfo, pdftotext), Prometheus
# (promtool, prometheus), etcd, Node.js and npm from Debian; MinIO built with
# `go install`; Helm, kwok, controller-gen and the Kubernetes control plane
# built from .ci/tools; the prometheus-operator CRDs generated with
# controller-gen; and
# the Microlink clients locked in .ci/clients installed with npm, all into a
# cache directory that survives between runs.
#
#   .ci/deps.sh            everything the tests need
#   .ci/deps.sh bench      plus what `make bench` needs
#   .ci/deps.sh run        only what `make run` needs: Chromium's headless shell and fonts
set -euo pipefail

CACHE="${GLIMPSE_CACHE:-$HOME/.cache/glimpse}"
CACHE_BIN="$CACHE/bin"
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
# The Kubernetes, Helm, kwok and controller-tools versions are the ones
# .ci/tools/go.mod requires.
TOOLS_DIR="$(cd "$(dirname "$0")/tools" && pwd)"
tools_version() { awk -v m="$1" '$1 == m { print $2; exit }' "$TOOLS_DIR/go.mod"; }
KUBE_VERSION=$(tools_version k8s.io/kubernetes)
HELM_VERSION=$(tools_version helm.sh/helm/v3)
KWOK_VERSION=$(tools_version sigs.k8s.io/kwok)
CONTROLLER_TOOLS_VERSION=$(tools_version sigs.k8s.io/controller-tools)
PROMETHEUS_OPERATOR_VERSION="v0.95.1"
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
# The headless shell is the sidecar's browser; the full browser is for the
# test and the bench that compare the two, which `make run` does not need.
if [ ! -x /usr/lib/chromium/chromium-headless-shell ] && { [ "${1:-}" != run ] || [ -z "${GLIMPSE_CHROME_PATH:-}" ]; }; then
  need_pkgs+=(chromium-headless-shell)
fi
if [ "${1:-}" != run ] && [ ! -x /usr/lib/chromium/chromium ] && ! command -v chromium >/dev/null; then
  need_pkgs+=(chromium)
fi
[ -d /usr/share/fonts/truetype/liberation ] || need_pkgs+=(fonts-liberation)
[ -d /usr/share/fonts/truetype/noto ] || need_pkgs+=(fonts-noto-color-emoji)
if [ "${1:-}" = run ]; then
  # `make run` needs only the browser and its fonts.
  if [ ${#need_pkgs[@]} -gt 0 ]; then
    apt_install "${need_pkgs[@]}"
  fi
  exit 0
fi
command -v pdfinfo >/dev/null || need_pkgs+=(poppler-utils)
command -v promtool >/dev/null || need_pkgs+=(prometheus)
command -v redis-server >/dev/null || need_pkgs+=(redis-server)
command -v etcd >/dev/null || need_pkgs+=(etcd-server)
command -v node >/dev/null || need_pkgs+=(nodejs)
command -v npm >/dev/null || need_pkgs+=(npm)
if [ "${1:-}" = bench ]; then
  command -v wrk >/dev/null || need_pkgs+=(wrk)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  apt_install "${need_pkgs[@]}"
fi

# The Go tools, built once into the cache. The first build is most of a
# fresh `make test`, so it is shaped for time:
# - Helm, kwok, controller-gen and the Kubernetes control plane are built
#   by one `go build` from the module in .ci/tools (see the comment at the
#   top of its go.mod). They share the Kubernetes libraries, and one build
#   compiles each shared package once instead of once per tool.
# - MinIO shares almost nothing with them; its own build runs beside that
#   one, so each fills the other's idle moments (downloads, links).
# - Symbol tables are left out (-s -w): nothing here is debugged, and the
#   links are shorter.
# Each build's stamp says what it was built from; a change rebuilds it.
built() { # stamp want binaries...
  local stamp=$1 want=$2 b
  shift 2
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || return 1
  for b in "$@"; do [ -x "$CACHE_BIN/$b" ] || return 1; done
}

minio_tool() {
  local stamp="$CACHE_BIN/.minio.version" want="$MINIO_VERSION -s -w"
  built "$stamp" "$want" minio && return
  say "building minio $MINIO_VERSION (cached in $CACHE_BIN; takes a few minutes once)"
  GOBIN="$CACHE_BIN" CGO_ENABLED=0 GOFLAGS=-buildvcs=false go install -trimpath -ldflags "-s -w" \
    "github.com/minio/minio@$MINIO_VERSION" || return 1
  echo "$want" > "$stamp"
}

# kube-apiserver, kube-controller-manager and kube-scheduler, which the chart
# test in helm/ installs the chart on, kwok, which plays its nodes, Helm,
# and controller-gen, which writes the prometheus-operator CRDs below. The
# Kubernetes commands are stamped with their version: without it they
# report v0.0.0-master and helm refuses the chart's kubeVersion. Helm
# stamps its own version and the Kubernetes version it assumes without a
# cluster; without them `helm version` says nothing useful and `helm
# lint`/`helm template` assume Kubernetes 1.20. This Helm is built against
# the 1.37 client libraries, so that is what it assumes.
module_tools() {
  local dir stamp want ldflags pkg minor=${KUBE_VERSION#v1.} helm=helm.sh/helm/v3
  minor=${minor%%.*}
  dir="$TOOLS_DIR"
  stamp="$CACHE_BIN/.tools.version"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  ldflags+=" -X $helm/internal/version.version=$HELM_VERSION -X $helm/internal/version.gitTreeState=clean"
  for pkg in pkg/chartutil pkg/lint/rules; do
    ldflags+=" -X $helm/$pkg.k8sVersionMajor=1 -X $helm/$pkg.k8sVersionMinor=$minor"
  done
  want="$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16) $ldflags"
  built "$stamp" "$want" kube-apiserver kube-controller-manager kube-scheduler kwok helm controller-gen && return
  say "building Helm, kwok, controller-gen and the Kubernetes $KUBE_VERSION control plane (cached in $CACHE_BIN; about 10 minutes once on 2 cores, beside MinIO)"
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "$ldflags" -o "$CACHE_BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
    sigs.k8s.io/kwok/cmd/kwok "$helm/cmd/helm" sigs.k8s.io/controller-tools/cmd/controller-gen) || return 1
  echo "$want" > "$stamp"
}

minio_tool &
minio_pid=$!
tools_ok=1
module_tools || tools_ok=
if ! wait "$minio_pid"; then
  say "building minio failed"
  exit 1
fi
[ -n "$tools_ok" ] || { say "building the tools in .ci/tools failed"; exit 1; }

# What that test reads besides the binaries, in $CACHE/kube: kwok's stages
# (kwok itself ships none; these are the ones kwokctl gives it: nodes become
# Ready, pods Ready at once, a Job's pods then succeed, deleted pods go), and
# the CustomResourceDefinitions of the prometheus-operator (ServiceMonitor,
# PrometheusRule, ...), generated from its API module with controller-gen.
module_dir() { # module@version
  go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}
kwok_stages() {
  local out="$CACHE/kube/kwok.yaml" stamp="$CACHE/kube/.kwok.yaml.version" src f
  if [ -f "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$KWOK_VERSION" ]; then
    return
  fi
  say "writing kwok $KWOK_VERSION's stages into $out"
  src=$(module_dir "sigs.k8s.io/kwok@$KWOK_VERSION")/kustomize/stage
  mkdir -p "$CACHE/kube"
  for f in node/fast/node-initialize pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    echo "---"
    cat "$src/$f.yaml"
  done > "$out.tmp"
  mv "$out.tmp" "$out"
  echo "$KWOK_VERSION" > "$stamp"
}
kwok_stages
monitoring_crds() {
  local out="$CACHE/kube/crd" stamp="$CACHE/kube/.crd.version" src work
  if [ -d "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$PROMETHEUS_OPERATOR_VERSION $CONTROLLER_TOOLS_VERSION" ]; then
    return
  fi
  say "generating the prometheus-operator $PROMETHEUS_OPERATOR_VERSION CRDs into $out"
  src=$(module_dir "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@$PROMETHEUS_OPERATOR_VERSION")
  work=$(mktemp -d)
  cp -r "$src/." "$work" && chmod -R u+w "$work"
  rm -rf "$out" && mkdir -p "$out"
  if ! (cd "$work" && GOFLAGS=-mod=mod "$CACHE_BIN/controller-gen" crd paths=./v1/... output:crd:dir="$out"); then
    rm -rf "$work"
    exit 1
  fi
  rm -rf "$work"
  echo "$PROMETHEUS_OPERATOR_VERSION $CONTROLLER_TOOLS_VERSION" > "$stamp"
}
monitoring_crds

# The clients glimpse promises to work with unchanged, @microlink/mql and the
# microlink CLI, and the MCP TypeScript SDK that drives /mcp, at the versions
# .ci/clients/package-lock.json locks, in $CACHE/npm for the tests that drive
# them against a running glimpse. The
# stamp is a hash of the manifest and lockfile, so changing either
# reinstalls; nothing else does. Install scripts stay off: the clients need
# none, and the tests run no code they did not ask for.
microlink_clients() {
  local src out="$CACHE/npm" stamp want
  src="$(cd "$(dirname "$0")/clients" && pwd)"
  stamp="$out/.lock.version"
  want=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -x "$out/node_modules/.bin/microlink" ]; then
    return
  fi
  say "installing the clients locked in .ci/clients (Microlink's and the MCP SDK) into $out with npm ci"
  rm -rf "$out" && mkdir -p "$out"
  cp "$src/package.json" "$src/package-lock.json" "$out/"
  if ! (cd "$out" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
    rm -rf "$out"
    exit 1
  fi
  echo "$want" > "$stamp"
}
microlink_clients
say "ready"
