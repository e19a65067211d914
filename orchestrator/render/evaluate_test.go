package render

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

func TestEvaluateRulesRunInWorldsOfTheirOwn(t *testing.T) {
	t.Parallel()
	// world answers the data rules' scripts, which run with a context id.
	world := func(reply func(c *cdptest.Call)) served {
		return served{Eval: func(c *cdptest.Call, p evalParams) bool {
			if p.ContextID == 0 || p.ContextID == glimpseContext {
				return false
			}
			reply(c)
			return true
		}}
	}
	gave := func(v any) served { return world(func(c *cdptest.Call) { _ = c.Reply(value(v)) }) }
	const rule = "&data.n.evaluate=" + "%28%29%20%3D%3E%20document.title"
	const src = "() => document.title"
	cases := []struct {
		name  string
		serve served
		setup func(b *scriptedBrowser)
		limit time.Duration
		want  Evaluation
		kind  Kind
		err   string
	}{
		{name: "a value is kept as its JSON", serve: gave(map[string]any{"t": "json", "s": `{"a":[1,2]}`}), want: Evaluation{Value: []byte(`{"a":[1,2]}`)}},
		{name: "a value larger than the bound is only measured", serve: gave(map[string]any{"t": "big", "n": MaxEvaluateBytes + 1}), want: Evaluation{TooLarge: MaxEvaluateBytes + 1}},
		{name: "a value JSON cannot hold is null", serve: gave(map[string]any{"t": "none"})},
		{name: "a value whose JSON does not parse is null", serve: gave(map[string]any{"t": "json", "s": `{"a":`})},
		{name: "an answer of another shape is null", serve: gave("forged")},
		{
			name:  "a JSON string longer than the bound is only measured",
			serve: gave(map[string]any{"t": "json", "s": `"` + strings.Repeat("x", MaxEvaluateBytes) + `"`}),
			limit: 20 * time.Second, // four megabytes each way take a while under -race
			want:  Evaluation{TooLarge: MaxEvaluateBytes + 2},
		},
		{name: "a script that throws is null", serve: world(func(c *cdptest.Call) { _ = c.Reply(exception("Error: no")) })},
		{
			name:  "a script the browser refuses is the service's failure",
			serve: world(func(c *cdptest.Call) { _ = c.Fail(-32000, "Cannot find context with specified id") }),
			err:   "running an `evaluate` script",
		},
		{
			name: "a world the browser cannot make is the service's failure",
			setup: func(b *scriptedBrowser) {
				b.handle("Page.createIsolatedWorld", cdptest.Error(-32000, "No frame for given id found"))
			},
			err: "No frame for given id found",
		},
		{
			name:  "a script that never settles runs into the timeout",
			serve: world(func(*cdptest.Call) {}), limit: 3 * time.Second,
			kind: TimedOut, err: "The `evaluate` script did not finish",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, tc.serve)
			if tc.setup != nil {
				tc.setup(b)
			}
			r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
			limit := tc.limit
			if limit == 0 {
				limit = renderLimit
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			var got map[string]Evaluation
			err := r.Render(ctx, parse(t, "url="+startURL+rule), func(_ context.Context, p *Page) error {
				got = p.Evaluated
				return nil
			})
			if tc.err != "" {
				if err == nil || kindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("the render failed with %v (kind %v); want kind %v saying %q", err, kindOf(err), tc.kind, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the render failed: %v", err)
			}
			ev, ok := got[src]
			if !ok || string(ev.Value) != string(tc.want.Value) || ev.TooLarge != tc.want.TooLarge {
				t.Errorf("the rule gave %+v (found %t); want %+v", ev, ok, tc.want)
			}
			w := worldSent(t, b, "glimpse-data-1")
			if w["frameId"] != string(pageTarget) {
				t.Errorf("the world was made with %s; want one of its own on the main frame", jsonOf(w))
			}
		})
	}
}

// worldSent is the Page.createIsolatedWorld the browser was sent for the
// world of that name.
func worldSent(t *testing.T, b *scriptedBrowser, name string) map[string]any {
	t.Helper()
	for _, m := range b.sent("Page.createIsolatedWorld") {
		if p := paramsOf[map[string]any](t, m); p["worldName"] == name {
			return p
		}
	}
	t.Fatalf("the browser was sent no Page.createIsolatedWorld for %q", name)
	return nil
}
