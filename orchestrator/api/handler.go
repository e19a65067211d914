package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/glimpse/glimpse/storage"
)

// handleAPI is GET /?url=…: identify the caller, parse, count the quota,
// answer from cache or render once for everyone asking the same.
func (s *Server) handleAPI(c echo.Context) error {
	hr := c.Request()
	h := c.Response().Header()

	plan, callerID, err := s.identify(c)
	if err != nil {
		return err
	}
	h.Set("x-pricing-plan", plan.Name)

	now := s.now()
	req, key, err := s.parsed.parse(hr.URL.RawQuery, s.limits)
	if err != nil {
		// A request that cannot be served is not counted, but its answer
		// still tells the caller where their window stands.
		setQuotaHeaders(h, s.limiter.Peek(callerID, plan, now))
		return err
	}
	q := s.limiter.Take(callerID, plan, now)
	setQuotaHeaders(h, q)
	if !q.Allowed {
		s.m.RateLimited.WithLabelValues(plan.Name).Inc()
		return &Error{Code: "ERATE", Status: http.StatusTooManyRequests, RetryAfter: q.Reset.Sub(now),
			Message: fmt.Sprintf("The %q plan allows %d requests per window and they are used up; the window resets at %s.",
				plan.Name, q.Limit, q.Reset.UTC().Format(time.RFC3339))}
	}

	ctx, cancel := context.WithTimeout(hr.Context(), req.Timeout)
	defer cancel()
	if !req.Force {
		if e := s.cache.Get(ctx, key, now); e != nil {
			fresh := e.freshUntil(req)
			switch {
			case now.Before(fresh):
				s.m.Cache.WithLabelValues("hit").Inc()
				return s.answer(c, req, e, "HIT")
			case req.StaleTTL > 0 && now.Before(fresh.Add(req.StaleTTL)):
				// Served at once; one background render replaces it.
				s.m.Cache.WithLabelValues("hit").Inc()
				s.refresh(req, key)
				return s.answer(c, req, e, "HIT")
			}
		}
		s.m.Cache.WithLabelValues("miss").Inc()
	} else {
		s.m.Cache.WithLabelValues("bypass").Inc()
	}
	if req.MetaOff && req.PDF == nil && req.Screenshot == nil && len(req.Data) == 0 {
		if err := s.checkTarget(ctx, req); err != nil {
			return err
		}
		return s.answer(c, req, s.emptyEntry(req, key), cacheStatus(req))
	}
	e, _, err := s.flight.Do(ctx, key, req.Timeout, func(rctx context.Context) (*Entry, error) {
		return s.produce(rctx, req, key)
	})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &Error{Code: "ETIMEOUT", Status: http.StatusGatewayTimeout, Err: err,
					Message: fmt.Sprintf("The request took longer than its `timeout` of %s; retry, or raise `timeout`.", req.Timeout)}
			}
			return &Error{Code: "ECLIENT", Status: 499, Message: "The client went away.", Err: err}
		}
		return err
	}
	return s.answer(c, req, e, cacheStatus(req))
}

// checkTarget applies the address rule before any work: a refused target
// never reaches a browser.
func (s *Server) checkTarget(ctx context.Context, req *Request) error {
	err := CheckTarget(ctx, s.deps.Policy, s.deps.Resolver, req.Target)
	if err != nil && AsError(err).Code == "EFORBIDDENURL" {
		s.m.GuardRefusals.WithLabelValues("request").Inc()
	}
	return err
}

// produce checks, renders and caches one answer.
func (s *Server) produce(ctx context.Context, req *Request, key string) (*Entry, error) {
	if err := s.checkTarget(ctx, req); err != nil {
		return nil, err
	}
	e, err := s.render(ctx, req, key)
	if err != nil {
		return nil, err
	}
	s.cache.Put(e)
	return e, nil
}

// refresh renders a stale entry again in the background; identical
// refreshes share one render.
func (s *Server) refresh(req *Request, key string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
		defer cancel()
		if _, _, err := s.flight.Do(ctx, key, req.Timeout, func(rctx context.Context) (*Entry, error) {
			return s.produce(rctx, req, key)
		}); err != nil {
			s.log.Warn("refreshing a stale cache entry failed; the stale one stays until it expires", "err", err)
		}
	}()
}

// setQuotaHeaders writes the x-rate-limit-* headers. The reset is rounded
// up: a client that waits until it must not be refused again.
func setQuotaHeaders(h http.Header, q Quota) {
	h.Set("x-rate-limit-limit", strconv.Itoa(q.Limit))
	h.Set("x-rate-limit-remaining", strconv.Itoa(q.Remaining))
	reset := q.Reset.Unix()
	if q.Reset.Nanosecond() > 0 {
		reset++
	}
	h.Set("x-rate-limit-reset", strconv.FormatInt(reset, 10))
}

func cacheStatus(req *Request) string {
	if req.Force {
		return "BYPASS"
	}
	return "MISS"
}

// emptyEntry answers meta=false without pdf: nothing to render.
func (s *Server) emptyEntry(req *Request, key string) *Entry {
	now := s.now()
	body, _ := successBody(nil)
	return &Entry{Key: key, Body: body, ETag: `"empty"`, Created: now, Expires: now.Add(req.TTL), TTL: req.TTL, FetchMode: "skipped"}
}

// answer writes a cached or fresh entry with the cache headers of API.md.
func (s *Server) answer(c echo.Context, req *Request, e *Entry, status string) error {
	c.Set(ctxCache, status)
	h := c.Response().Header()
	now := s.now()
	left := int64(e.freshUntil(req).Sub(now) / time.Second)
	if left < 0 {
		left = 0
	}
	if status == "BYPASS" {
		h.Set("cache-control", "public, must-revalidate, max-age=0")
	} else {
		h.Set("cache-control", "public, immutable, max-age="+strconv.FormatInt(left, 10))
	}
	h.Set("x-cache-status", status)
	h.Set("x-cache-ttl", strconv.FormatInt(req.TTL.Milliseconds(), 10))
	h.Set("x-fetch-mode", e.FetchMode)

	if req.Embed != "" {
		return s.embed(c, req, e)
	}
	h.Set("etag", e.ETag)
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagMatch(inm, e.ETag) {
		return c.NoContent(http.StatusNotModified)
	}
	h.Add("vary", "Accept-Encoding")
	body, coding := e.body(c.Request().Header.Get("Accept-Encoding"))
	if coding != "" {
		h.Set("content-encoding", coding)
	}
	h.Set("content-type", echo.MIMEApplicationJSONCharsetUTF8)
	h.Set("content-length", strconv.Itoa(len(body)))
	if c.Request().Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err := c.Response().Write(body)
	return err
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// embed answers with the asset itself instead of the envelope.
func (s *Server) embed(c echo.Context, req *Request, e *Entry) error {
	target, ok := e.Embeds[req.Embed]
	if !ok || target == "" {
		field := strings.TrimSuffix(req.Embed, ".url")
		return &Error{Code: "EINVALQUERY", Status: 400, Param: "embed",
			Message: fmt.Sprintf("`embed=%s` asks for the page's %s, but the page has none; drop `embed` to get the JSON answer.", req.Embed, field)}
	}
	if !strings.HasPrefix(target, storage.PublicPrefix) {
		return c.Redirect(http.StatusFound, target)
	}
	rc, obj, err := s.deps.Store.Get(c.Request().Context(), target)
	if err != nil {
		s.m.StorageErrors.WithLabelValues("get").Inc()
		return &Error{Code: "EFATAL", Status: 503, RetryAfter: 5 * time.Second, Err: err,
			Message: "Reading the stored file failed because file storage is unreachable; try again shortly."}
	}
	defer rc.Close()
	h := c.Response().Header()
	h.Set("content-type", obj.ContentType)
	h.Set("content-length", strconv.FormatInt(obj.Size, 10))
	h.Set("content-disposition", fmt.Sprintf("inline; filename=%q", path.Base(target)))
	if c.Request().Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), rc)
	return err
}

// identify finds the caller's plan: an API key's, or the anonymous plan
// counted per client address.
func (s *Server) identify(c echo.Context) (*Plan, string, error) {
	plans := s.deps.Plans
	if key := c.Request().Header.Get("x-api-key"); key != "" {
		plan, id, ok := plans.Lookup(key)
		if !ok {
			return nil, "", &Error{Code: "EAUTH", Status: http.StatusUnauthorized,
				Message: "The `x-api-key` header holds a key this service does not know; check the key, or send none for the anonymous plan."}
		}
		return plan, id, nil
	}
	return &plans.Anonymous, "ip:" + c.RealIP(), nil
}

// cacheKey names everything that changes the answer: the target with its
// query parameters sorted, the fields, the PDF options, the media, ping,
// and a digest of the forwarded headers, so that an answer rendered with
// one caller's cookie is never served to a caller without it. Not force,
// ttl, timeout or embed.
func cacheKey(r *Request) string {
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
	return hex.EncodeToString(h.Sum(nil)[:20])
}

func sortedQuery(raw string) string {
	parts := strings.Split(raw, "&")
	slices.Sort(parts)
	return strings.Join(parts, "&")
}

// redactTarget keeps the scheme, host and path of a target for logs.
func redactTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if len(raw) > 64 {
			raw = raw[:64]
		}
		return strings.ToValidUTF8(raw, "?")
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	u.Fragment = ""
	return u.String()
}

func prefixToIPNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
