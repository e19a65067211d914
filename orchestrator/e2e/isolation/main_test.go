// Package isolation_test checks, on a real Chromium, that no page can
// hurt another render or glimpse's reading of itself: each lease talks to
// its page over a DevTools connection of its own, and glimpse's scripts
// run in a world the page's JavaScript cannot reach.
package isolation_test

import (
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }
