#!/usr/bin/env bash
# Makes sure everything the tests need is on this machine, installing what
# is missing: Chromium and fonts, poppler-utils (pdfinfo, pdftotext), Prometheus
# (promtool, prometheus), etcd, Node.js and npm from Debian; MinIO, Helm and
# kwok built with `go install`, the Kubernetes control plane built from
# .ci/kube, the prometheus-operator CRDs generated with controller-gen, and
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
HELM_VERSION="v3.22.0"
# The Kubernetes version is the one .ci/kube/go.mod requires.
KUBE_VERSION="v1.37.2"
KWOK_VERSION="v0.8.0"
CONTROLLER_TOOLS_VERSION="v0.23.0"
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

go_tool() { # name module version [ldflags]
  local name=$1 module=$2 version=$3 ldflags=${4:-} stamp="$CACHE_BIN/.$1.version"
  if [ -x "$CACHE_BIN/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version $ldflags" ]; then
    return
  fi
  say "building $name $version with go install (cached in $CACHE_BIN; takes a few minutes once)"
  GOBIN="$CACHE_BIN" GOFLAGS=-buildvcs=false go install -ldflags "$ldflags" "$module@$version"
  echo "$version $ldflags" > "$stamp"
}
go_tool minio github.com/minio/minio "$MINIO_VERSION"
# helm stamps its own version and the Kubernetes version it assumes without a
# cluster from its Makefile's ldflags; without them `helm version` says
# nothing useful and `helm lint`/`helm template` assume Kubernetes 1.20. This
# helm is built against the 1.37 client libraries, so that is what it assumes.
HELM_PKG=helm.sh/helm/v3
HELM_LDFLAGS="-X $HELM_PKG/internal/version.version=$HELM_VERSION -X $HELM_PKG/internal/version.gitTreeState=clean"
for p in pkg/chartutil pkg/lint/rules; do
  HELM_LDFLAGS+=" -X $HELM_PKG/$p.k8sVersionMajor=1 -X $HELM_PKG/$p.k8sVersionMinor=37"
done
go_tool helm "$HELM_PKG/cmd/helm" "$HELM_VERSION" "$HELM_LDFLAGS"
go_tool kwok sigs.k8s.io/kwok/cmd/kwok "$KWOK_VERSION"
go_tool controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen "$CONTROLLER_TOOLS_VERSION"

# kube-apiserver, kube-controller-manager and kube-scheduler, which the chart
# test in helm/ installs the chart on. They are built from the module in
# .ci/kube (see the comment at the top of its go.mod) and stamped with their
# version: without it they report v0.0.0-master and helm refuses the chart's
# kubeVersion. The stamp also covers go.mod and go.sum, so a change there
# rebuilds them.
kube_tools() {
  local dir stamp want ldflags pkg
  dir="$(cd "$(dirname "$0")/kube" && pwd)"
  stamp="$CACHE_BIN/.kube.version"
  want="$KUBE_VERSION $(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)"
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
    [ -x "$CACHE_BIN/kube-apiserver" ] && [ -x "$CACHE_BIN/kube-controller-manager" ] && [ -x "$CACHE_BIN/kube-scheduler" ]; then
    return
  fi
  say "building the Kubernetes $KUBE_VERSION control plane (cached in $CACHE_BIN; takes 15-20 minutes once)"
  local minor=${KUBE_VERSION#v1.}
  minor=${minor%%.*}
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "$ldflags" -o "$CACHE_BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler)
  echo "$want" > "$stamp"
}
kube_tools

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
