// Package deploy holds the Dockerfiles of glimpse's two images, the
// orchestrator and the sidecar (Chromium with fonts), and tests that check
// how they are built: multi-stage, non-root, tini as PID 1. Operators build
// the images; the Helm chart under helm/ runs them.
package deploy
