package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
)

// MaxEvaluateBytes bounds the JSON of one `evaluate` result. The page
// measures it before anything is sent, so a script that builds a huge
// value costs the page's time, not the connection every page of the
// sidecar shares.
const MaxEvaluateBytes = 4 << 20

// Evaluation is what one `evaluate` script of the data rules gave.
type Evaluation struct {
	// Value is the result as JSON; nil when the script threw, gave
	// undefined or a value JSON cannot hold (a function, a cycle).
	Value json.RawMessage
	// TooLarge is the result's JSON length when it passed MaxEvaluateBytes;
	// Value is nil then.
	TooLarge int
}

// isolatedWorld names the worlds the scripts run in, for a reader of the
// browser's own logs.
const isolatedWorld = "glimpse-data"

// evaluateScripts runs each of the data rules' scripts in a world of its
// own on the page's main frame: a script sees the page's DOM, but not its
// globals, and the page cannot see or replace its (a page that redefines
// JSON.stringify changes nothing here); nor can one script replace what
// the next one runs with. Each runs under what is left of the request's
// deadline; a script that never settles ends the request with ETIMEOUT.
func evaluateScripts(ctx context.Context, sess *cdp.Session, frameID string, scripts []string) (map[string]Evaluation, error) {
	out := make(map[string]Evaluation, len(scripts))
	for i, src := range scripts {
		// The browser hands back the world already made under a name, so
		// each script's has its own.
		world, err := cdp.Execute(ctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
			FrameID: cdproto.FrameID(frameID), WorldName: isolatedWorld + "-" + strconv.Itoa(i+1),
		})
		if err != nil {
			return nil, err
		}
		ev, err := evaluateIn(ctx, sess, world.ExecutionContextID, src)
		if err != nil {
			return nil, err
		}
		out[src] = ev
	}
	return out, nil
}

// evaluateIn runs one script. The source is what mql sends: a function's
// text, which is called, or an expression; either may give a promise. The
// result is turned into JSON in the page and measured there.
func evaluateIn(ctx context.Context, sess *cdp.Session, world runtime.ExecutionContextID, src string) (Evaluation, error) {
	left := time.Until(deadlineOf(ctx, time.Second))
	if left <= 0 {
		return Evaluation{}, timeoutError(ctx, "The `evaluate` script did not finish within the `timeout`")
	}
	// The source reaches the page as a string literal and is compiled by
	// the world's own eval, so nothing in it can close the wrapper and
	// return past the measure below (`1); return {…}; (0` is a syntax
	// error, not a forged answer). JSON.stringify is taken before the
	// script runs, and what it gave is checked: what leaves the page is a
	// string within MaxEvaluateBytes, never a value of the script's
	// making, whatever size. The DevTools call allows the eval on a page
	// whose policy forbids it (allowUnsafeEvalBlockedByCSP defaults to
	// true), as it allows the evaluation itself.
	lit, err := json.Marshal(src)
	if err != nil {
		return Evaluation{}, fmt.Errorf("encoding an `evaluate` script: %w", err)
	}
	js := fmt.Sprintf(`(async (src) => {
  const stringify = JSON.stringify;
  let v = (0, eval)("(" + src + "\n)");
  if (typeof v === "function") v = v();
  v = await v;
  let s;
  try { s = stringify(v); } catch (e) { return {t: "none"}; }
  if (typeof s !== "string") return {t: "none"};
  if (s.length > %d) return {t: "big", n: s.length};
  return {t: "json", s};
})(%s)`, MaxEvaluateBytes, lit)
	t := true
	res, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: js, ContextID: world, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
		// Timeout stops a script that never yields (an endless loop);
		// the context ends one that waits forever.
		Timeout: runtime.TimeDelta(left.Milliseconds()),
	})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return Evaluation{}, timeoutError(ctx, "The `evaluate` script did not finish within the `timeout`")
		}
		return Evaluation{}, browserError(ctx, "running an `evaluate` script", err)
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		// The script threw, or could not be parsed: Microlink answers
		// null for the rule, and what it threw stays in the page.
		if ctx.Err() != nil {
			return Evaluation{}, timeoutError(ctx, "The `evaluate` script did not finish within the `timeout`")
		}
		return Evaluation{}, nil
	}
	var v struct {
		T string `json:"t"`
		S string `json:"s"`
		N int    `json:"n"`
	}
	if err := jsonv2.Unmarshal(res.Result.Value, &v); err != nil {
		return Evaluation{}, nil
	}
	switch {
	case v.T == "big":
		return Evaluation{TooLarge: v.N}, nil
	case v.T == "json" && len(v.S) > MaxEvaluateBytes:
		return Evaluation{TooLarge: len(v.S)}, nil
	case v.T == "json" && json.Valid([]byte(v.S)):
		return Evaluation{Value: json.RawMessage(v.S)}, nil
	}
	return Evaluation{}, nil
}
