// Package testtool holds the one rule for a test whose outside tool
// (MinIO, Helm, Redis, the Kubernetes binaries, the npm clients,
// promtool and prometheus, poppler-utils) is missing: under -short the
// test is skipped, naming the command that installs the tool; otherwise
// it fails, since `make test` installs every tool before it runs.
package testtool

import (
	"fmt"
	"testing"
)

// Missing ends the test for the missing tool err describes; err should
// already say how to install it.
func Missing(tb testing.TB, err error) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("%v (skipped with -short; `make deps` installs every tool the tests need)", err)
	}
	tb.Fatal(err)
}

// Missingf is Missing with a formatted message.
func Missingf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	Missing(tb, fmt.Errorf(format, args...))
}
