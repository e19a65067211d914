package render

import (
	"context"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
)

// runInReaderWorld runs glimpse's own expression in a world of its own on
// the page's main frame, awaits it and decodes its value: the expression
// sees and changes the page's DOM, but not the page's globals, so a page
// that replaces setTimeout, querySelectorAll or Promise changes nothing
// here, and the page never sees glimpse's variables. It works with the
// page's Content-Security-Policy as it is.
func runInReaderWorld(ctx context.Context, lease Lease, name, expr string, out any) error {
	sess := lease.Page()
	world, err := cdp.Execute(ctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: cdproto.FrameID(lease.TargetID()), WorldName: name,
	})
	if err != nil {
		return err
	}
	t := true
	res, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: world.ExecutionContextID, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		what := res.ExceptionDetails.Text
		if ex := res.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
			what = ex.Description
		}
		return fmt.Errorf("glimpse's script failed in the page: %s", what)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return fmt.Errorf("glimpse's script returned nothing")
	}
	return jsonv2.Unmarshal(res.Result.Value, out)
}
