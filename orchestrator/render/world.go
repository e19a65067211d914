package render

import (
	"context"
	"errors"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
)

// glimpse's own scripts (the DOM read, the waits, the clicks, the
// element boxes) run in an isolated world of their own, never in the
// page's main world: the two share the DOM but not their JavaScript, so a
// page that redefines String.prototype.slice, the outerHTML getter,
// Promise, Number.prototype or getBoundingClientRect changes what its own
// scripts see, not what glimpse reads, and cannot lift the bounds those
// scripts keep. Only the caller's `scripts` and `function` code runs in
// the main world, as the caller means it to; glimpse only names the
// page's window and document there, which runs none of the page's code,
// to ask the browser for their listeners (see hearsScroll).

// glimpseWorld names the world, for a reader of the browser's own logs.
const glimpseWorld = "glimpse"

// errPageScript marks glimpse's own script failing in the page: the
// page's doing (a document the script cannot read), answered as the
// target's failure, never as the service's.
var errPageScript = errors.New("glimpse's script could not read the page")

// worldOf returns the execution context of glimpse's world in the page's
// current document. The browser keeps one world per name and frame and
// hands it back, with a context for whatever document the frame holds now,
// so asking each time follows navigations at the cost of one round trip.
func worldOf(ctx context.Context, sess *cdp.Session) (runtime.ExecutionContextID, error) {
	frame := sess.TargetID()
	if frame == "" {
		return 0, errors.New("the page session names no target, so glimpse's world cannot be made in its frame")
	}
	w, err := cdp.Execute(ctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: cdproto.FrameID(frame), WorldName: glimpseWorld,
	})
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// evaluate runs one of glimpse's own expressions in glimpse's world and
// decodes its value.
func evaluate(ctx context.Context, sess *cdp.Session, expr string, out any) error {
	world, err := worldOf(ctx, sess)
	if err != nil {
		return err
	}
	t := true
	res, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: world, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		what := res.ExceptionDetails.Text
		if ex := res.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
			what = ex.Description
		}
		return fmt.Errorf("%w: %s", errPageScript, clipText(what, 200))
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return fmt.Errorf("%w: the script returned nothing", errPageScript)
	}
	if err := jsonv2.Unmarshal(res.Result.Value, out); err != nil {
		return fmt.Errorf("%w: its value does not decode: %w", errPageScript, err)
	}
	return nil
}

// clipText keeps an excerpt of a page's words short in errors and logs.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// pageOverLimit is the render's answer when the page made the browser
// send more than its connection reads: the page's doing, ending its own
// lease only, and not worth a second browser.
func pageOverLimit(err error) error {
	return &Error{Kind: Unreadable, Err: err,
		Message: "The page made the browser send more than glimpse reads from one page; it cannot be rendered."}
}
