package query

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// maxProxyLength bounds `proxy` as given.
const maxProxyLength = 2048

// parseProxy reads `proxy`, as Microlink's: the URL of an HTTP or HTTPS
// proxy, `http://user:pass@host:port`, that the request's browser and
// plain fetch leave through. Messages never repeat the value: it holds
// the caller's credentials.
func parseProxy(q *query, lim Limits) (*url.URL, error) {
	p, ok := q.get("proxy")
	if !ok {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		e := apierr.Query(p.given, "", format, args...)
		e.Data = map[string]any{p.given: "***"}
		return e
	}
	if lim.NoProxy {
		return nil, fail("This glimpse does not accept `%s`: its operator turned it off (GLIMPSE_ALLOW_PROXY=false); send the request without it.", p.given)
	}
	v := strings.TrimSpace(p.value)
	if v == "" || len(v) > maxProxyLength {
		return nil, fail("`%s` must be the URL of an HTTP or HTTPS proxy, such as `http://user:pass@proxy.example:8080`, at most %d bytes.", p.given, maxProxyLength)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "" {
		return nil, fail("`%s` must be the URL of an HTTP or HTTPS proxy, such as `http://user:pass@proxy.example:8080`: a scheme of http or https and a host.", p.given)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, fail("`%s` must name a proxy by scheme, credentials, host and port only, with no path, query or fragment.", p.given)
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fail("The port of `%s` must be a number from 1 to 65535.", p.given)
		}
	}
	if strings.ContainsAny(u.Hostname(), " \t\r\n") {
		return nil, fail("The host of `%s` is not a valid host name.", p.given)
	}
	out := &url.URL{Scheme: u.Scheme, User: u.User, Host: strings.ToLower(ProxyAddr(u))}
	return out, nil
}

// ProxyAddr is the proxy's host:port, its scheme's port when it names
// none.
func ProxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// ProxyHost is how messages and logs name a proxy: its scheme, host and
// port, never its credentials.
func ProxyHost(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// CheckProxy applies the address rule to the caller's proxy before any
// work, as CheckTarget does to the target: a proxy on an internal address
// is EFORBIDDENURL naming `proxy`, one whose host does not resolve is
// EINVALQUERY. The sidecar's guard checks it again where it connects.
func CheckProxy(ctx context.Context, p *guard.Policy, r guard.Resolver, u *url.URL) error {
	if u == nil {
		return nil
	}
	if r == nil {
		r = net.DefaultResolver
	}
	_, err := p.Resolve(ctx, r, u.Hostname())
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		e := apierr.From(ctxErr)
		e.Err = err
		return e
	}
	shown := ProxyHost(u)
	var refused *guard.RefusedError
	if errors.As(err, &refused) {
		e := apierr.New(apierr.CodeForbiddenURL, fmt.Sprintf(
			"The `proxy` %s is not allowed: it resolves to a non-public address (%s), and glimpse only connects to proxies on public addresses; use a publicly reachable proxy.",
			apierr.Show(shown), refused.Reason))
		e.Param = "proxy"
		e.Data = map[string]any{"proxy": shown}
		e.Err = err
		return e
	}
	e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf("The host of the `proxy` %s does not resolve to any address; check the spelling.", apierr.Show(shown)))
	e.Param = "proxy"
	e.Data = map[string]any{"proxy": shown}
	e.Err = err
	return e
}
