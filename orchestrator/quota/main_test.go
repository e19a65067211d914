package quota

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that closed limiters leave no goroutine of the Redis
// client behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
