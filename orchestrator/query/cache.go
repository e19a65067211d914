package query

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// Bounds of the cache parameters (docs/api.md#parameters).
const (
	defaultTTL = 24 * time.Hour
	minTTL     = time.Minute
	maxTTL     = 31 * 24 * time.Hour
)

// parseCache reads `ttl`, `staleTtl` and `force`.
func parseCache(q *query, req *Request) error {
	if p, ok := q.get("ttl"); ok {
		d, ok := parseTTL(p.value)
		if !ok || d < minTTL || d > maxTTL {
			return apierr.Query(p.given, p.value,
				"`%s` must be from 1 minute to 31 days, in milliseconds (`3600000`), with a unit (`1h`, `7d`), or `min` or `max`, got %s.",
				p.given, apierr.Show(p.value))
		}
		req.TTL = d
	}
	if p, ok := q.get("staleTtl"); ok {
		// As Microlink's: a refresh window before the answer expires, at
		// most its ttl; 0 (or true) serves the expired answer once while
		// it refreshes; false is off.
		switch v := strings.TrimSpace(p.value); v {
		case "false":
			req.Stale, req.StaleTTL = false, 0
		case "true", "":
			req.Stale, req.StaleTTL = true, 0
		default:
			d, ok := parseQueryDuration(v)
			if !ok || d < 0 || d > req.TTL {
				return apierr.Query(p.given, p.value,
					"`%s` must be from 0 to the answer's `ttl` (%s), in milliseconds (`60000`) or with a unit (`1h`), or `true` or `false`, got %s.",
					p.given, req.TTL, apierr.Show(p.value))
			}
			req.Stale, req.StaleTTL = true, d
		}
	}
	if p, ok := q.get("force"); ok {
		v, ok := parseBool(p.value)
		if !ok {
			return boolError(p)
		}
		req.Force = v
	}
	return nil
}

// parseTTL reads a ttl: a duration, or Microlink's aliases `min` and
// `max` for the bounds.
func parseTTL(v string) (time.Duration, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "min":
		return minTTL, true
	case "max":
		return maxTTL, true
	}
	return parseQueryDuration(v)
}

// Key names everything that changes the answer: the target with its
// query parameters ordered by name, the fields, the PDF options, the
// media, ping, and a digest of the forwarded headers, so that an answer
// rendered with one caller's cookie is never served to a caller without
// it. An `embed` that names a data rule counts too: only that rule's
// value is kept for it beside the envelope, so the plain answer cannot
// serve it. Not force, ttl, or an `embed` of a file or asset, which every
// answer keeps; the timeout counts only for an answer it cut short, which
// the cache entry records.
func Key(r *Request) string {
	h := sha256.New()
	t := *r.Target
	if t.RawQuery != "" {
		t.RawQuery = sortedQuery(t.RawQuery)
	}
	fmt.Fprintf(h, "v1\ntarget=%s\n", t.String())
	fmt.Fprintf(h, "meta=%t fields=%s\n", r.MetaOff, strings.Join(r.Fields, ","))
	fmt.Fprintf(h, "media=%s ping=%t prerender=%s\n", r.MediaType, r.Ping, r.Prerender)
	if p := r.PDF; p != nil {
		fmt.Fprintf(h, "pdf=%g,%g,%g,%g,%g,%g,%g,%t,%q,%t\n", p.Width, p.Height, p.Margin.Top, p.Margin.Right,
			p.Margin.Bottom, p.Margin.Left, p.Scale, p.Landscape, p.PageRanges, p.PrintBackground)
	}
	if r.Screenshot != nil {
		fmt.Fprintf(h, "screenshot=%+v\n", *r.Screenshot)
	}
	fmt.Fprintf(h, "controls=%+v\n", r.Controls)
	for _, d := range r.Data {
		fmt.Fprintf(h, "data=%+v\n", d)
	}
	fmt.Fprintf(h, "filter=%q\n", r.Filter)
	if r.Extras.Any() {
		e := r.Extras
		iframe := "off"
		if e.Iframe != nil {
			iframe = fmt.Sprintf("%+v", *e.Iframe)
		}
		fmt.Fprintf(h, "extras video=%t audio=%t palette=%t technologies=%t iframe=%s\n", e.Video, e.Audio, e.Palette, e.Technologies, iframe)
	}
	if embedsRule(r) {
		fmt.Fprintf(h, "embed rule=%q\n", r.Embed)
	}
	if len(r.Headers) > 0 {
		names := make([]string, 0, len(r.Headers))
		for k := range r.Headers {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			fmt.Fprintf(h, "header %s=%q\n", k, r.Headers[k])
		}
	}
	if r.Proxy != nil {
		// Another way out may get another answer (a wall passed, another
		// country's page). Only a digest goes in: the URL holds the
		// caller's proxy credentials.
		sum := sha256.Sum256([]byte(r.Proxy.String()))
		fmt.Fprintf(h, "proxy=%x\n", sum)
	}
	return hex.EncodeToString(h.Sum(nil)[:20])
}

// embedsRule reports whether `embed` names one of the request's data
// rules rather than a file or an asset.
func embedsRule(r *Request) bool {
	if r.Embed == "" {
		return false
	}
	for _, d := range r.Data {
		if d.Name == r.Embed {
			return true
		}
	}
	return false
}

// sortedQuery orders a target's query parameters by name, keeping the
// order of the values of one name: a server may read `?a=1&a=2` and
// `?a=2&a=1` differently (the first or the last wins, or a list), so
// they are two pages, while `?a=1&b=2` and `?b=2&a=1` are one.
func sortedQuery(raw string) string {
	parts := strings.Split(raw, "&")
	slices.SortStableFunc(parts, func(a, b string) int {
		an, _, _ := strings.Cut(a, "=")
		bn, _, _ := strings.Cut(b, "=")
		return strings.Compare(an, bn)
	})
	return strings.Join(parts, "&")
}
