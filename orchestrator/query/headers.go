package query

import (
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// hopByHop are headers that describe one connection, not the request, or
// that glimpse must set itself; forwarding them would break the exchange
// with the target or reach glimpse's own egress proxy.
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "content-length": true,
}

func parseHeaders(q *query) (http.Header, error) {
	var h http.Header
	total := 0
	for _, p := range q.order {
		if p.name == "headers" {
			return nil, apierr.Query(p.given, p.value,
				"`%s` takes one parameter per header, such as `headers.cookie=sid%%3Dabc` or `headers.authorization=Bearer%%20xyz`.", p.given)
		}
		name, ok := strings.CutPrefix(p.name, "headers.")
		if !ok {
			continue
		}
		if name == "" {
			return nil, apierr.Query(p.given, p.value, "`%s` needs a header name after the dot, such as `headers.cookie`.", p.given)
		}
		if !httpguts.ValidHeaderFieldName(name) {
			return nil, apierr.Query(p.given, p.value,
				"`%s` does not name a valid header: a header name is letters, digits and ``!#$%%&'*+-.^_`|~``.", p.given)
		}
		lower := strings.ToLower(name)
		if hopByHop[lower] || strings.HasPrefix(lower, "proxy-") {
			return nil, apierr.Query(p.given, p.value,
				"`%s` cannot be forwarded: `%s` concerns the connection, which glimpse manages itself; remove it.",
				p.given, strings.TrimPrefix(p.given, "headers."))
		}
		// glimpse's own headers speak to the sidecar's egress guard on
		// the way out (the caller's proxy, a question, a nonce): from a
		// caller they would steer glimpse's hop, not reach the target.
		if strings.HasPrefix(lower, "x-glimpse-") {
			return nil, apierr.Query(p.given, p.value,
				"`%s` cannot be forwarded: headers named `X-Glimpse-…` are glimpse's own; remove it, and name a proxy with `proxy`.", p.given)
		}
		value := strings.Trim(p.value, " \t")
		if !httpguts.ValidHeaderFieldValue(value) {
			return nil, apierr.Query(p.given, p.value,
				"`%s` has a value with control characters (such as a line break); send the value on one line.", p.given)
		}
		if h == nil {
			h = http.Header{}
		}
		h[name] = []string{value}
		total += len(name) + len(value)
	}
	if len(h) > maxHeaders {
		e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf("%d `headers.<name>` parameters were given; glimpse forwards at most %d.", len(h), maxHeaders))
		e.Param = "headers"
		return nil, e
	}
	if total > maxHeaderBytes {
		e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf(
			"The `headers.<name>` parameters add up to %d bytes of names and values; glimpse forwards at most %d bytes (8 KiB).",
			total, maxHeaderBytes))
		e.Param = "headers"
		return nil, e
	}
	return h, nil
}
