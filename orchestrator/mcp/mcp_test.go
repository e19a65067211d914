package mcp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestTheKeyComesFromEitherHeader(t *testing.T) {
	cases := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"no header is the anonymous plan", http.Header{}, ""},
		{"a bearer token is the key", http.Header{"Authorization": {"Bearer k-live-1"}}, "k-live-1"},
		{"the scheme is read in any case", http.Header{"Authorization": {"bearer  k-live-1 "}}, "k-live-1"},
		{"x-api-key is the key", http.Header{"X-Api-Key": {"k-live-2"}}, "k-live-2"},
		{"x-api-key wins over a bearer token", http.Header{"X-Api-Key": {"k-a"}, "Authorization": {"Bearer k-b"}}, "k-a"},
		{"basic credentials are not a key", http.Header{"Authorization": {"Basic dTpw"}}, ""},
		{"a bare token without a scheme is not a key", http.Header{"Authorization": {"k-live-1"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := APIKey(c.header); got != c.want {
				t.Errorf("APIKey = %q, want %q", got, c.want)
			}
		})
	}
}

func TestRulesAreWrittenInDotNotation(t *testing.T) {
	cases := []struct {
		name  string
		rules map[string]any
		want  map[string]string
		err   string
	}{
		{"a rule's options", map[string]any{"price": map[string]any{"selector": ".price", "type": "number"}},
			map[string]string{"data.price.selector": ".price", "data.price.type": "number"}, ""},
		{"fallbacks are numbered", map[string]any{"t": []any{map[string]any{"selector": "h1"}, map[string]any{"selector": "title"}}},
			map[string]string{"data.t.0.selector": "h1", "data.t.1.selector": "title"}, ""},
		{"nested rules go under attr", map[string]any{"p": map[string]any{"selectorAll": ".p", "attr": map[string]any{"name": map[string]any{"attr": "text"}}}},
			map[string]string{"data.p.selectorAll": ".p", "data.p.attr.name.attr": "text"}, ""},
		{"numbers and booleans are written as the API reads them", map[string]any{"x": map[string]any{"n": 1.5, "b": true, "i": float64(3)}},
			map[string]string{"data.x.n": "1.5", "data.x.b": "true", "data.x.i": "3"}, ""},
		{"a null is left out", map[string]any{"x": map[string]any{"selector": "a", "attr": nil}},
			map[string]string{"data.x.selector": "a"}, ""},
		{"a name with a dot is refused", map[string]any{"a.b": map[string]any{"selector": "a"}}, nil, "no dots"},
		{"an empty name is refused", map[string]any{"": map[string]any{"selector": "a"}}, nil, "non-empty"},
		{"rules nested without end are refused", deep(40), nil, "deeper than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := url.Values{}
			err := flattenRules(q, c.rules)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(q) != len(c.want) {
				t.Errorf("got %v, want %v", q, c.want)
			}
			for k, v := range c.want {
				if q.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, q.Get(k), v)
				}
			}
		})
	}
}

func deep(n int) map[string]any {
	m := map[string]any{"selector": "a"}
	for range n {
		m = map[string]any{"attr": map[string]any{"x": m}}
	}
	return map[string]any{"r": m}
}

func TestAnAnswerThatIsNotASuccessIsAToolErrorWithACode(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		over   bool
		code   string
	}{
		{"the API's envelope keeps its code", 400, `{"status":"fail","code":"EINVALURL","message":"The URL is not valid."}`, false, "EINVALURL"},
		{"a quota error keeps its code", 429, `{"status":"fail","code":"ERATE","message":"used up"}`, false, "ERATE"},
		{"a body that is not an envelope is EFATAL", 502, `<html>bad gateway</html>`, false, "EFATAL"},
		{"an answer past the bound is EFATAL", 200, `{"status":"success"`, true, "EFATAL"},
		{"a success that does not parse is EFATAL", 200, `{"status":"success","data":`, false, "EFATAL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &reply{status: c.status, header: http.Header{}, over: c.over}
			rep.body.WriteString(c.body)
			_, res := decode(rep)
			if res == nil || !res.IsError {
				t.Fatalf("want a tool error, got %+v", res)
			}
			env, ok := res.StructuredContent.(envelope)
			if !ok || env.Code != c.code || env.Message == "" {
				t.Fatalf("structuredContent = %+v, want code %s with a message", res.StructuredContent, c.code)
			}
		})
	}
}

func TestTheReplyStopsAtItsBound(t *testing.T) {
	rep := &reply{header: http.Header{}}
	if _, err := rep.Write(make([]byte, maxAnswerBytes)); err != nil {
		t.Fatal(err)
	}
	if _, err := rep.Write([]byte("x")); err == nil || !rep.over {
		t.Fatal("a byte past the bound was kept")
	}
}
