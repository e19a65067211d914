// Package lazy_test tests what glimpse does before a capture so that it
// shows what a reader would see: content that loads late or on scroll,
// the network's quiet period of waitUntil=auto, and consent banners out
// of the way.
package lazy_test

import (
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// TestMain stops the glimpse that the package's default-configuration
// tests share (e2e.Shared).
func TestMain(m *testing.M) { e2e.Main(m) }
