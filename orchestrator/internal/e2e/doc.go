// Package e2e starts whole glimpses for the end-to-end tests under
// orchestrator/e2e: the embedded sidecar with a real Chromium, loopback
// targets allowed, storage in a temporary directory. It also holds what
// those tests share: the decoded answer, loopback page servers, metric
// readers, and the rule for a missing tool (skip under -short, fail
// otherwise). It is imported by tests only.
package e2e
