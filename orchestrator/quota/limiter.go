package quota

import (
	"context"
	"time"
)

// Limiter counts each caller's requests in fixed windows that start with
// the caller's first request: a window of plan.Window admits plan.Limit
// requests, and the first request after it ends starts the next one.
// Memory counts in this process; Redis counts in one place for every
// replica. Neither fails: a limiter that cannot count where it should
// counts in memory and says so in its log and metrics.
type Limiter interface {
	// Take counts one request of caller id under plan, unless the window
	// is used up.
	Take(ctx context.Context, id string, plan *Plan, now time.Time) Quota
	// Peek reports the caller's window without counting a request.
	Peek(ctx context.Context, id string, plan *Plan, now time.Time) Quota
}

// Quota is the state of one caller's window after a request.
type Quota struct {
	Limit     int
	Remaining int
	Reset     time.Time
	Allowed   bool
}

// windowKey names a caller's window: the same caller under another plan
// counts apart.
func windowKey(id string, plan *Plan) string { return plan.Name + "|" + id }
