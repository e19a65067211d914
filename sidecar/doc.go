// Package sidecar launches and supervises headless Chromium: one browser
// process group per generation, restarted with backoff when it dies and
// recycled after a number of pages or too much memory. It serves /healthz and
// a stable DevTools WebSocket at /devtools/browser that follows whichever
// Chromium is current, and one per page at /devtools/page/{id}, to callers
// holding the sidecar token only, and passes
// them only the DevTools commands glimpse uses. The egress rule itself lives
// in sidecar/guard; pools, pages and what is rendered belong to the
// orchestrator.
package sidecar
