package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/answer"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/orchestrator/overlay"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/quota"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/storage"
)

// handleAPI is GET /?url=…: identify the caller, parse, count the quota,
// answer from cache or render once for everyone asking the same.
func (s *Server) handleAPI(c echo.Context) error {
	hr := c.Request()
	h := c.Response().Header()
	if s.deps.Playground != nil && wantsPage(hr) {
		c.Set(ctxOutput, metrics.OutputNone)
		s.deps.Playground.ServeHTTP(c.Response(), hr)
		return nil
	}

	plan, callerID, err := s.identify(c)
	if err != nil {
		return err
	}
	h.Set("x-pricing-plan", plan.Name)

	now := s.now()
	req, key, err := s.parsed.Parse(hr.URL.RawQuery, s.limits)
	if err != nil {
		// A request that cannot be served is not counted, but its answer
		// still tells the caller where their window stands.
		setQuotaHeaders(h, s.limiter.Peek(hr.Context(), callerID, plan, now))
		return err
	}
	c.Set(ctxOutput, outputOf(req))
	if len(req.Ignored) > 0 {
		// Set before any answer is chosen: a cache hit, a miss and an
		// error after parsing all say what made no difference.
		h.Set("x-glimpse-ignored", strings.Join(req.Ignored, ","))
	}
	q := s.limiter.Take(hr.Context(), callerID, plan, now)
	setQuotaHeaders(h, q)
	if !q.Allowed {
		s.m.RateLimited.WithLabelValues(plan.Name).Inc()
		e := apierr.New(apierr.CodeRate, fmt.Sprintf("The %q plan allows %d requests per window and they are used up; the window resets at %s.",
			plan.Name, q.Limit, q.Reset.UTC().Format(time.RFC3339)))
		e.RetryAfter = q.Reset.Sub(now)
		return e
	}

	ctx, cancel := context.WithTimeout(hr.Context(), req.Timeout)
	defer cancel()
	result := metrics.CacheBypass
	if !req.Force {
		result = metrics.CacheMiss
		// An answer cut short by its own `timeout` serves only callers who
		// give no more time: the timeout is part of what made it.
		if e, from := s.cache.Lookup(ctx, key, now); e != nil && !e.CutShortFor(req.Timeout) && s.filesKept(ctx, e) {
			fresh := e.FreshUntil(req.TTL)
			switch {
			case now.Before(fresh.Add(-req.StaleTTL)):
				s.m.Cache.WithLabelValues(metrics.CacheHit, from).Inc()
				return s.answer(c, req, e, "HIT")
			case req.Stale && now.Before(e.Expires):
				// Within the refresh window before expiry, or expired and
				// kept for this: served at once, and one background
				// render replaces it.
				s.m.Cache.WithLabelValues(metrics.CacheStale, from).Inc()
				s.refresh(req, key)
				return s.answer(c, req, e, "STALE")
			case now.Before(fresh):
				s.m.Cache.WithLabelValues(metrics.CacheHit, from).Inc()
				return s.answer(c, req, e, "HIT")
			}
		}
	}
	if !req.ReadsPage() && req.PDF == nil && req.Screenshot == nil {
		s.m.Cache.WithLabelValues(result, metrics.CacheFromRender).Inc()
		if err := s.checkTarget(ctx, req); err != nil {
			return err
		}
		return s.answer(c, req, s.entry(req, key, &answer.Result{Body: answer.Empty(), FetchMode: "skipped"}), cacheStatus(req))
	}
	// A joined render cut short by another caller's shorter timeout is
	// rendered again inside the flight, once for every caller of this one.
	e, joined, err := s.flight.Do(ctx, key, req.Timeout, func(rctx context.Context) (*cache.Entry, error) {
		return s.produce(rctx, req, key)
	})
	s.m.Cache.WithLabelValues(result, renderSource(joined)).Inc()
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				e := apierr.New(apierr.CodeTimeout, fmt.Sprintf("The request took longer than its `timeout` of %s; retry, or raise `timeout`.", req.Timeout))
				e.Err = err
				return e
			}
			e := apierr.New(apierr.CodeClient, "The client went away.")
			e.Err = err
			return e
		}
		return err
	}
	return s.answer(c, req, e, cacheStatus(req))
}

// renderSource is the source label of an answer that was rendered: by
// this request, or by an identical one it joined.
func renderSource(joined bool) string {
	if joined {
		return metrics.CacheFromJoined
	}
	return metrics.CacheFromRender
}

// wantsPage reports whether a request to / is a person's browser opening
// the service rather than an API call: no `url`, and HTML accepted by
// name. An API client without `url` still gets the EINVALURL envelope.
func wantsPage(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "text/html") {
		return false // every API call, cheaply
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
		if mt == "text/html" {
			return !r.URL.Query().Has("url")
		}
	}
	return false
}

// outputOf is a request's output label: the most expensive output it asks
// for, since that decides its work. Markdown is a data rule that reads
// the page as Markdown (the article extraction); meta=false alone asks for
// nothing.
func outputOf(req *query.Request) string {
	switch {
	case req.PDF != nil:
		return metrics.OutputPDF
	case req.Screenshot != nil:
		return metrics.OutputScreenshot
	case readsMarkdown(req.Data):
		return metrics.OutputMarkdown
	case len(req.Data) > 0:
		return metrics.OutputData
	case !req.MetaOff:
		return metrics.OutputMetadata
	default:
		return metrics.OutputNone
	}
}

// readsMarkdown reports whether any rule, nested ones included, reads a
// value as Markdown.
func readsMarkdown(rules []query.DataRule) bool {
	for _, r := range rules {
		for _, q := range r.Fallbacks {
			if q.Attr == "markdown" || readsMarkdown(q.Fields) {
				return true
			}
		}
	}
	return false
}

// checkTarget applies the address rule before any work: a refused target
// never reaches a browser.
func (s *Server) checkTarget(ctx context.Context, req *query.Request) error {
	err := query.CheckTarget(ctx, s.deps.Policy, s.deps.Resolver, req.Target)
	if err == nil {
		err = query.CheckProxy(ctx, s.deps.Policy, s.deps.Resolver, req.Proxy)
	}
	if err != nil && s.asError(err).Code == apierr.CodeForbiddenURL {
		s.m.GuardRefusals.WithLabelValues("request").Inc()
	}
	return err
}

// produce checks, renders, composes and caches one answer.
func (s *Server) produce(ctx context.Context, req *query.Request, key string) (*cache.Entry, error) {
	if err := s.checkTarget(ctx, req); err != nil {
		return nil, err
	}
	start := s.now()
	pre, err := s.prefetch(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := s.renderAnswer(ctx, req, key, pre)
	if err != nil {
		return nil, err
	}
	e := s.entry(req, key, res)
	e.FetchTime = s.now().Sub(start)
	if e.Wall = res.Wall; e.Wall == "" {
		// A wall's picture is not the page's: the next caller gets a
		// render of its own, which may pass.
		s.cache.Put(e)
	}
	return e, nil
}

// prefetch fetches what the answer needs besides the page before a
// browser is leased: an overlay's background image. Its URL passes the
// same address rule as the target, so a private address is refused here
// and never fetched.
func (s *Server) prefetch(ctx context.Context, req *query.Request) (answer.Prefetched, error) {
	var pre answer.Prefetched
	if req.Screenshot == nil || !req.Screenshot.Overlay.On() {
		return pre, nil
	}
	bg, err := overlay.ParseBackground(req.Screenshot.Overlay.Background)
	if err != nil || bg.Kind != overlay.Picture {
		return pre, nil
	}
	u, err := query.ParseTarget(bg.URL)
	if err != nil {
		return pre, err
	}
	if err := s.checkTarget(ctx, &query.Request{Target: u}); err != nil {
		return pre, answer.BackgroundAddressError(bg.URL, err)
	}
	pre.Background, err = answer.FetchBackground(ctx, s.renderer.Assets(u, nil), u.String())
	return pre, err
}

// filesKept reports whether the files an entry names are still stored. A
// local store over its byte budget sweeps the oldest files, possibly ones
// a cached answer names; such an answer is rendered again. Other stores
// keep files as long as answers live, so they are not asked.
func (s *Server) filesKept(ctx context.Context, e *cache.Entry) bool {
	if s.deps.Store == nil || s.deps.Store.Kind() != "local" {
		return true
	}
	for _, k := range []string{"pdf.url", "screenshot.url"} {
		if key, ok := e.Embeds[k]; ok && strings.HasPrefix(key, storage.PublicPrefix) {
			if _, err := s.deps.Store.Stat(ctx, key); err != nil {
				return false
			}
		}
	}
	return true
}

// texts are the rule values of an answer that `embed` returns, as the
// cache keeps them.
func texts(res *answer.Result) map[string]cache.Text {
	if len(res.Texts) == 0 {
		return nil
	}
	out := make(map[string]cache.Text, len(res.Texts))
	for k, t := range res.Texts {
		out[k] = cache.Text{Body: t.Body, ContentType: t.ContentType}
	}
	return out
}

// degradedTTL is the longest a degraded answer is kept: long enough to
// spare a struggling dependency a burst of renders, short enough that the
// whole answer follows soon.
const degradedTTL = time.Minute

// staleKeep is how long past its ttl an answer made for a caller who gave
// `staleTtl` is kept, to be served once, stale, while it refreshes: the
// longest ttl, which the stores' lifecycle rules allow for.
const staleKeep = 31 * 24 * time.Hour

// lifetime is what a finished answer may serve: for how long it is fresh,
// how long past that it is kept to be served stale once while it
// refreshes (staleKeep, for a caller who gave `staleTtl`), and the
// timeout that cut it short (0 for a whole one), which keeps it from
// callers who give more time. A degraded answer (part of it missing for
// glimpse's reason, not the page's) is treated as cut short, lives at
// most degradedTTL and is never served stale.
func lifetime(req *query.Request, res *answer.Result) (ttl, stale, cutShortAt time.Duration) {
	ttl = req.TTL
	if req.Stale {
		stale = staleKeep
	}
	if res.CutShort || res.Degraded {
		cutShortAt = req.Timeout
	}
	if res.Degraded {
		ttl, stale = min(ttl, degradedTTL), 0
	}
	return ttl, stale, cutShortAt
}

// entry is a finished answer as the cache keeps it.
func (s *Server) entry(req *query.Request, key string, res *answer.Result) *cache.Entry {
	sum := sha256.Sum256(res.Body)
	now := s.now()
	ttl, stale, cutShortAt := lifetime(req, res)
	return &cache.Entry{
		Key: key, Body: res.Body, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`,
		Created: now, Expires: now.Add(ttl + stale), TTL: ttl, FetchMode: res.FetchMode, Embeds: res.Embeds,
		CutShortAt: cutShortAt, Texts: texts(res),
	}
}

// refresh renders a stale entry again in the background; identical
// refreshes share one render.
func (s *Server) refresh(req *query.Request, key string) {
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
		defer cancel()
		if _, _, err := s.flight.Do(ctx, key, req.Timeout, func(rctx context.Context) (*cache.Entry, error) {
			// A caller who read the stale entry just before an earlier
			// refresh stored its answer asks for a refresh that is done.
			if e, _ := s.cache.Lookup(rctx, key, s.now()); e != nil && s.now().Before(e.FreshUntil(req.TTL).Add(-req.StaleTTL)) {
				return e, nil
			}
			return s.produce(rctx, req, key)
		}); err != nil {
			s.log.Warn("refreshing a stale cache entry failed; the stale one stays until it expires", "err", err)
		}
	}()
}

// setQuotaHeaders writes the x-rate-limit-* headers. The reset is rounded
// up: a client that waits until it must not be refused again.
func setQuotaHeaders(h http.Header, q quota.Quota) {
	h.Set("x-rate-limit-limit", strconv.Itoa(q.Limit))
	h.Set("x-rate-limit-remaining", strconv.Itoa(q.Remaining))
	reset := q.Reset.Unix()
	if q.Reset.Nanosecond() > 0 {
		reset++
	}
	h.Set("x-rate-limit-reset", strconv.FormatInt(reset, 10))
}

func cacheStatus(req *query.Request) string {
	if req.Force {
		return "BYPASS"
	}
	return "MISS"
}

// answer writes a cached or fresh entry with the cache headers of
// docs/api.md#response-headers.
func (s *Server) answer(c echo.Context, req *query.Request, e *cache.Entry, status string) error {
	c.Set(ctxCache, status)
	h := c.Response().Header()
	now := s.now()
	left := int64(e.FreshUntil(req.TTL).Sub(now) / time.Second)
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
	// As Microlink's: when the answer was made, in Unix milliseconds (with
	// x-cache-ttl, when it expires), and how long its render took.
	h.Set("x-timestamp", strconv.FormatInt(e.Created.UnixMilli(), 10))
	h.Set("x-fetch-time", formatResponseTime(e.FetchTime))
	if e.Wall != "" {
		h.Set("x-glimpse-wall", e.Wall)
		h.Set("cache-control", "no-store")
	}

	if req.Embed != "" {
		return s.embed(c, req, e)
	}
	h.Set("etag", e.ETag)
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagMatch(inm, e.ETag) {
		return c.NoContent(http.StatusNotModified)
	}
	h.Add("vary", "Accept-Encoding")
	body, coding := e.Encoded(c.Request().Header.Get("Accept-Encoding"))
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
func (s *Server) embed(c echo.Context, req *query.Request, e *cache.Entry) error {
	if t, ok := e.Texts[req.Embed]; ok {
		return s.embedText(c, t)
	}
	target, ok := e.Embeds[req.Embed]
	if !ok || target == "" {
		field := strings.TrimSuffix(req.Embed, ".url")
		e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf("`embed=%s` asks for the page's %s, but the page has none; drop `embed` to get the JSON answer.", req.Embed, field))
		e.Param = "embed"
		return e
	}
	if !strings.HasPrefix(target, storage.PublicPrefix) {
		return s.streamAsset(c, req, target)
	}
	rc, obj, err := s.deps.Store.Get(c.Request().Context(), target)
	if err != nil {
		s.m.StorageErrors.WithLabelValues("get").Inc()
		return answer.StorageError("Reading the stored file failed because file storage is unreachable; try again shortly.", err)
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

// embedText answers with a data rule's value itself. HTML served from
// glimpse's own origin must not run: it goes with nosniff and a sandbox.
func (s *Server) embedText(c echo.Context, t cache.Text) error {
	h := c.Response().Header()
	h.Set("content-type", t.ContentType)
	h.Set("x-content-type-options", "nosniff")
	h.Set("content-security-policy", "default-src 'none'; sandbox")
	h.Set("content-length", strconv.Itoa(len(t.Body)))
	if c.Request().Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err := io.WriteString(c.Response(), t.Body)
	return err
}

// maxEmbedAssetBytes bounds an asset that `embed` passes through.
const maxEmbedAssetBytes = 32 << 20

// streamAsset answers with one of the page's assets, fetched through the
// egress guard like the page itself. The caller is never sent to an
// address the page declared: a page may name any address, the cloud's
// metadata service included, and a redirect would make the caller's
// client fetch it.
func (s *Server) streamAsset(c echo.Context, req *query.Request, raw string) error {
	field := strings.TrimSuffix(req.Embed, ".url")
	u, err := query.ParseTarget(raw)
	if err != nil {
		return &render.Error{Kind: render.Unreadable, Err: err,
			Message: fmt.Sprintf("The page's %s is at an address glimpse does not fetch; drop `embed` to get its URL in the JSON answer.", field)}
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), req.Timeout)
	defer cancel()
	if err := s.checkTarget(ctx, &query.Request{Target: u}); err != nil {
		return err
	}
	body, header, err := s.renderer.AssetsOf(req).Open(ctx, u.String())
	if err != nil {
		var re *render.Error
		if errors.As(err, &re) || errors.Is(err, render.ErrEgress) {
			return err // the target's word, or the service's own failure
		}
		return &render.Error{Kind: render.Unreadable, Err: err,
			Message: fmt.Sprintf("The page's %s could not be fetched; drop `embed` to get its URL in the JSON answer.", field)}
	}
	defer body.Close()
	h := c.Response().Header()
	ct := header("content-type")
	if mt, _, _ := mime.ParseMediaType(ct); !strings.HasPrefix(mt, "image/") {
		// Served from glimpse's own origin, a page could run script
		// there; anything but an image goes as bytes. The sandbox below
		// keeps an SVG's scripts from running too.
		ct = "application/octet-stream"
	}
	h.Set("content-type", ct)
	h.Set("x-content-type-options", "nosniff")
	h.Set("content-security-policy", "default-src 'none'; sandbox")
	h.Set("content-disposition", fmt.Sprintf("inline; filename=%q", path.Base(u.Path)))
	if n, err := strconv.ParseInt(header("content-length"), 10, 64); err == nil && n >= 0 && n <= maxEmbedAssetBytes && header("content-encoding") == "" {
		h.Set("content-length", strconv.FormatInt(n, 10))
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), io.LimitReader(body, maxEmbedAssetBytes))
	return err
}

// queryKeyParams are the spellings under which a key arrives in the query
// string: the microlink CLI's `--api-key=K` sends `api-key`, and code that
// builds the URL itself writes `apiKey` or `api_key`.
var queryKeyParams = []string{"api-key", "apiKey", "api_key"}

// identify finds the caller's plan: an API key's, or the anonymous plan
// counted per client network (see quota.AnonymousID). A key is read from
// the x-api-key header or from the query string; it is honoured wherever it
// comes from, and a key given twice with different values, or one that is
// unknown, is refused, so a caller never runs on the anonymous plan by
// mistake.
func (s *Server) identify(c echo.Context) (*quota.Plan, string, error) {
	plans := s.deps.Plans
	key, from, err := apiKey(c.Request())
	if err != nil {
		return nil, "", err
	}
	if from == "" {
		return &plans.Anonymous, quota.AnonymousID(c.RealIP()), nil
	}
	plan, id, ok := plans.Lookup(key)
	if !ok {
		if from == "x-api-key" {
			return nil, "", apierr.New(apierr.CodeAuth,
				"The `x-api-key` header holds a key this service does not know; check the key, or send none for the anonymous plan.")
		}
		e := apierr.New(apierr.CodeAuth, fmt.Sprintf(
			"The `%s` parameter holds a key this service does not know; check the key, or send none for the anonymous plan.", from))
		e.Param = from
		return nil, "", e
	}
	return plan, id, nil
}

// apiKey is the caller's key and where it was found ("x-api-key" or the
// query parameter's name), or "" when there is none. The key itself never
// appears in an error: answers and logs must not repeat a secret.
func apiKey(r *http.Request) (key, from string, err error) {
	if v := r.Header.Values("x-api-key"); len(v) > 0 {
		key, from = v[0], "x-api-key"
		for _, other := range v[1:] {
			if other != key {
				return "", "", apierr.New(apierr.CodeAuth, "The `x-api-key` header is sent more than once with different keys; send one.")
			}
		}
		if key == "" {
			from = ""
		}
	}
	q := r.URL.Query()
	for _, name := range queryKeyParams {
		for _, v := range q[name] {
			switch {
			case v == "" || v == "true":
				// `--api-key` with no value: mri makes it true.
				e := apierr.New(apierr.CodeAuth, fmt.Sprintf("The `%s` parameter holds no key; give the key as its value (`%s=<key>`), or send it in the `x-api-key` header.", name, name))
				e.Param = name
				return "", "", e
			case from == "":
				key, from = v, name
			case v != key:
				e := apierr.New(apierr.CodeAuth, fmt.Sprintf("An API key is given in both `%s` and `%s`, with different values; send one key, preferably in the `x-api-key` header.", from, name))
				e.Param = name
				return "", "", e
			}
		}
	}
	return key, from, nil
}

// redactTarget is how a log line names a target: the scheme, host and
// path of the URL as glimpse normalises it, or "<unparseable>". Nothing of
// its query, fragment or user-info is written, nor any byte of a spelling
// glimpse could not read: logins embedded in a URL must not reach logs.
func redactTarget(raw string) string {
	u, err := query.ParseTarget(raw)
	if err != nil {
		return "<unparseable>"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}
