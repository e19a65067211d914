package walls_test

import (
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// TestMain stops the glimpse that the package's default-configuration
// tests share (e2e.Shared).
func TestMain(m *testing.M) { e2e.Main(m) }
