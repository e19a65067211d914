package orchestrator

import (
	"context"

	"github.com/glimpse/glimpse/pool"
)

// ScreenshotOptions are the `screenshot.*` parameters.
type ScreenshotOptions struct{}

// screenshotParam recognises the screenshot parameters.
func screenshotParam(name string) (string, bool) { return "", false }

// parseScreenshot reads `screenshot` and `screenshot.*` into req.Screenshot.
func parseScreenshot(q *query, req *Request) error { return nil }

// captureScreenshot takes the screenshot and stores it like a PDF; it
// returns the asset object and the storage key for embed.
func (s *Server) captureScreenshot(ctx context.Context, lease *pool.Lease, req *Request, key string) (*Asset, string, error) {
	return nil, "", nil
}
