package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/quota"
)

// A key in the query string, as the microlink CLI's `--api-key=K` sends it,
// is honoured like the x-api-key header, or refused with EAUTH: it is never
// dropped in favour of the anonymous plan.
func TestAKeyInTheQueryIsHonouredOrRefusedNeverDropped(t *testing.T) {
	plans, err := quota.ParsePlans([]byte(`
anonymous: {name: walk-in, limit: 100, window: 1h}
plans: [{name: pro, limit: 100, window: 1h}]
keys: [{key: k-live-123, plan: pro}, {key: k-other-456, plan: pro}]
`))
	if err != nil {
		t.Fatal(err)
	}
	hs := quotaServer(t, quota.NewMemory(), plans, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	target := "url=" + url.QueryEscape("http://127.0.0.1:1/") + "&meta=false"

	cases := []struct {
		name   string
		query  string
		header string // x-api-key, when set
		status int
		plan   string
		param  string // the parameter EAUTH names
	}{
		{name: "no key is the anonymous plan", status: 200, plan: "walk-in"},
		{name: "the header's key is honoured", header: "k-live-123", status: 200, plan: "pro"},
		{name: "api-key in the query is honoured", query: "api-key=k-live-123", status: 200, plan: "pro"},
		{name: "apiKey in the query is honoured", query: "apiKey=k-live-123", status: 200, plan: "pro"},
		{name: "api_key in the query is honoured", query: "api_key=k-live-123", status: 200, plan: "pro"},
		{name: "the same key in the header and the query is honoured", query: "api-key=k-live-123", header: "k-live-123", status: 200, plan: "pro"},
		{name: "an unknown key in the query is refused by name", query: "api-key=k-made-up", status: 401, param: "api-key"},
		{name: "an unknown key in the header is refused", header: "k-made-up", status: 401},
		{name: "an empty key in the query is refused", query: "api-key=", status: 401, param: "api-key"},
		{name: "a bare flag without a key is refused", query: "apiKey", status: 401, param: "apiKey"},
		{name: "a header and a query that disagree are refused", query: "api-key=k-other-456", header: "k-live-123", status: 401, param: "api-key"},
		{name: "two spellings that disagree are refused", query: "api-key=k-live-123&apiKey=k-other-456", status: 401, param: "apiKey"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := target
			if tc.query != "" {
				q += "&" + tc.query
			}
			req, _ := http.NewRequest(http.MethodGet, hs.URL+"/?"+q, nil)
			if tc.header != "" {
				req.Header.Set("x-api-key", tc.header)
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 200 {
				if got := resp.Header.Get("x-pricing-plan"); got != tc.plan {
					t.Errorf("x-pricing-plan %q, want %q", got, tc.plan)
				}
				return
			}
			var env struct{ Code, Message string }
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatalf("not the JSON envelope: %s", body)
			}
			if env.Code != "EAUTH" {
				t.Errorf("code %q, want EAUTH: %s", env.Code, body)
			}
			if tc.param != "" && !strings.Contains(env.Message, "`"+tc.param+"`") {
				t.Errorf("the message does not name `%s`: %s", tc.param, env.Message)
			}
			for _, secret := range []string{"k-live-123", "k-other-456", "k-made-up"} {
				if strings.Contains(string(body), secret) {
					t.Errorf("the refusal repeats the key %q: %s", secret, body)
				}
			}
		})
	}
}
