# syntax=docker/dockerfile:1
#
# A glimpse sidecar: supervises one headless Chromium and serves its
# DevTools endpoint, /healthz and /metrics on port 9230. Build from the
# repository root:
#
#   docker build -f deploy/sidecar.Dockerfile -t glimpse/sidecar .
#
# Run it with a memory-backed /dev/shm of 1Gi or more (the Helm chart mounts
# one); Docker's default of 64Mi makes Chromium tabs crash.

ARG GO_VERSION=1.26.8
ARG DEBIAN_RELEASE=bookworm

FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/sidecar ./sidecar/cmd/sidecar

FROM debian:${DEBIAN_RELEASE}-slim
# Chromium's headless shell from Debian (no windows and no browser UI: about
# half the processor time and memory per page of the full browser's
# headless mode), with fonts for Latin, Greek, Cyrillic, Arabic,
# Hebrew, Indic, CJK and emoji, so pages and their PDFs do not render as
# boxes. The font cache is built here, because the root file system is
# read-only at run time.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell \
      fontconfig \
      fonts-dejavu-core \
      fonts-liberation \
      fonts-noto-core \
      fonts-noto-cjk \
      fonts-noto-color-emoji \
      ca-certificates \
      tini \
 && rm -rf /var/lib/apt/lists/* \
 && fc-cache -f
RUN groupadd --system --gid 10001 glimpse \
 && useradd --system --uid 10001 --gid glimpse --home-dir /home/glimpse --create-home \
      --shell /usr/sbin/nologin glimpse
COPY --from=build /out/sidecar /usr/local/bin/sidecar
# The real binary, not the /usr/bin/chromium-headless-shell wrapper script,
# so the sidecar's flags are the only ones Chromium gets.
ENV HOME=/home/glimpse \
    GLIMPSE_CHROME_PATH=/usr/lib/chromium/chromium-headless-shell \
    GLIMPSE_SIDECAR_ADDR=:9230
WORKDIR /home/glimpse
USER 10001:10001
EXPOSE 9230
# tini runs as PID 1: SIGTERM goes to the sidecar alone, which drains its
# pages and stops Chromium, and tini reaps Chromium's orphaned helpers.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/sidecar"]
