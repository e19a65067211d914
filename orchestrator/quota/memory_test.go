package quota

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestMemorySweepsWindowsThatEnded(t *testing.T) {
	ctx := context.Background()
	plan := &Plan{Name: "tiny", Limit: 3, Window: 2 * time.Second}
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	l := NewMemory()
	for i := range 100 {
		l.Take(ctx, fmt.Sprintf("ip:192.0.2.%d", i), plan, t0)
	}
	l.Take(ctx, "ip:198.51.100.1", plan, t0.Add(2*time.Minute))
	l.mu.Lock()
	n := len(l.windows)
	l.mu.Unlock()
	if n != 1 {
		t.Errorf("%d windows are kept, want only the live one", n)
	}
}
