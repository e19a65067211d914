# syntax=docker/dockerfile:1
#
# The glimpse orchestrator: the HTTP API, cache, rate limits and renders.
# Build from the repository root:
#
#   docker build -f deploy/orchestrator.Dockerfile -t glimpse/orchestrator .
#
# It holds no browser: point it at sidecars with GLIMPSE_SIDECARS (the Helm
# chart does). The embedded default, without GLIMPSE_SIDECARS, needs
# Chromium and therefore the sidecar image's packages.

ARG GO_VERSION=1.26.8
ARG DEBIAN_RELEASE=bookworm

FROM golang:${GO_VERSION}-${DEBIAN_RELEASE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# A static binary: the runtime stage needs no Go toolchain and no libc match.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/orchestrator ./orchestrator/cmd/orchestrator

FROM debian:${DEBIAN_RELEASE}-slim
# tini runs as PID 1: it forwards SIGTERM to glimpse, which drains in-flight
# requests, and reaps any orphaned child. poppler-utils reads the text of
# PDF targets (pdftotext, run as a bounded subprocess).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini poppler-utils \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 glimpse \
 && useradd --system --uid 10001 --gid glimpse --home-dir /home/glimpse --create-home \
      --shell /usr/sbin/nologin glimpse
COPY --from=build /out/orchestrator /usr/local/bin/orchestrator
ENV HOME=/home/glimpse
WORKDIR /home/glimpse
USER 10001:10001
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/orchestrator"]
