package guard

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// Upstream is a caller's HTTP or HTTPS proxy that the guard sends one
// request's traffic through, after the address rule: the target is
// checked as for a direct connection, and the proxy's own address must
// pass the rule too (public unless allow-listed). Its credentials go to
// the proxy alone, in Proxy-Authorization, and never into a log line.
type Upstream struct {
	scheme string // http or https
	addr   string // host:port
	host   string // the host, for TLS
	auth   string // the Proxy-Authorization value; "" without credentials
	user   *url.Userinfo
	key    string // a digest of the whole URL, credentials included
}

// ParseUpstream reads a proxy URL, http://user:pass@host:port or https://…;
// a missing port is the scheme's. Its errors never repeat the URL.
func ParseUpstream(raw string) (*Upstream, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("an upstream proxy must be an http:// or https:// URL of a host and port, with credentials or not, and nothing else")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, errors.New("an upstream proxy's port must be a number from 1 to 65535")
	}
	up := &Upstream{scheme: u.Scheme, addr: net.JoinHostPort(u.Hostname(), port), host: u.Hostname()}
	if u.User != nil {
		up.user = u.User
		pass, _ := u.User.Password()
		up.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
	}
	sum := sha256.Sum256([]byte(u.Scheme + "://" + u.User.String() + "@" + up.addr))
	up.key = hex.EncodeToString(sum[:12])
	return up, nil
}

// Key names the proxy with its credentials, without revealing them: two
// callers' different credentials for one proxy are two keys.
func (u *Upstream) Key() string { return u.key }

// String is the proxy without its credentials, for logs and messages.
func (u *Upstream) String() string { return u.scheme + "://" + u.addr }

// dial connects to the proxy itself through the guard's dialer, so its
// address passes the rule, and speaks TLS to an https proxy.
func (u *Upstream) dial(ctx context.Context, d *Dialer) (net.Conn, error) {
	conn, err := d.DialContext(ctx, "tcp", u.addr)
	if err != nil {
		return nil, &upstreamError{up: u, err: err}
	}
	if u.scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: u.host, MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, &upstreamError{up: u, err: err}
		}
		conn = tc
	}
	return conn, nil
}

// upstreamError is a failure to reach the caller's proxy, not the target.
type upstreamError struct {
	up  *Upstream
	err error
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("glimpse could not use the proxy %s: %v", e.up, e.err)
}
func (e *upstreamError) Unwrap() error { return e.err }

// checkTarget applies the address rule to a target before its traffic
// goes to the proxy, which resolves it again on its own: the rule is
// held where glimpse can hold it.
func (d *Dialer) checkTarget(ctx context.Context, host string, port uint16) error {
	addrs, err := d.Policy.Resolve(ctx, d.resolver(), host)
	if err != nil {
		d.refused(host, err)
		return err
	}
	for _, a := range addrs {
		if err := d.Policy.checkAddrPort(host, netip.AddrPortFrom(a, port)); err != nil {
			d.refused(host, err)
			return err
		}
	}
	return nil
}

// Via returns the proxy's handler for requests whose traffic leaves
// through up: the same answers and the same rule as ServeHTTP, with each
// target reached through the caller's proxy (CONNECT through it for a
// tunnel, absolute-form requests for plain http) instead of directly.
// Its transport keeps no idle connection: nothing of one caller's proxy
// outlives the request that used it.
func (p *Proxy) Via(up *Upstream) http.Handler {
	p.init()
	// The transport sends the credentials as Proxy-Authorization itself.
	proxyURL := &url.URL{Scheme: up.scheme, Host: up.addr, User: up.user}
	transport := &http.Transport{
		Proxy: func(*http.Request) (*url.URL, error) { return proxyURL, nil },
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			conn, err := p.dialer.DialContext(ctx, "tcp", up.addr)
			if err != nil {
				return nil, &upstreamError{up: up, err: err}
			}
			return newIdleConn(conn, p.idleTimeout(), new(activity)), nil
		},
		DisableKeepAlives:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: p.idleTimeout(),
		DisableCompression:    true,
	}
	forward := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = upstreamScheme(pr.In.URL.Scheme)
			pr.Out.URL.User = nil
			pr.Out.Header.Del(NonceHeader)
		},
		Transport:     transport,
		FlushInterval: -1,
		ModifyResponse: func(res *http.Response) error {
			// The proxy's own refusal is not the target's answer: passed
			// on, the browser would ask for proxy credentials it has not.
			if res.StatusCode == http.StatusProxyAuthRequired {
				return &upstreamError{up: up, err: errors.New("it answered 407 Proxy Authentication Required")}
			}
			res.Header.Del(Header)
			res.Header.Del(MarkHeader)
			return nil
		},
		ErrorLog: p.forward.ErrorLog,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.failVia(w, r, r.URL.Hostname(), err)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.ctx.Err() != nil {
			p.answer(w, r, http.StatusServiceUnavailable, "closing", "the glimpse egress proxy is shutting down")
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(p.ctx, cancel)()
		r = r.WithContext(ctx)

		hostport := r.Host
		if r.Method != http.MethodConnect {
			if !r.URL.IsAbs() || r.URL.Host == "" {
				p.answer(w, r, http.StatusBadRequest, "bad-request",
					"this is the glimpse egress proxy: send absolute-form requests (GET http://host/path) or CONNECT host:port")
				return
			}
			if r.URL.Scheme != "http" && r.URL.Scheme != "ws" {
				p.refuse(w, r, r.URL.Hostname(), fmt.Sprintf("glimpse sends plain http and ws through a proxy; %s: goes through CONNECT", r.URL.Scheme))
				return
			}
			hostport = r.URL.Host
			if r.URL.Port() == "" {
				hostport = net.JoinHostPort(r.URL.Hostname(), "80")
			}
		}
		host, portText, err := net.SplitHostPort(hostport)
		port, perr := strconv.ParseUint(portText, 10, 16)
		if err != nil || perr != nil || port == 0 {
			p.answer(w, r, http.StatusBadRequest, "bad-request", "CONNECT needs host:port, as in CONNECT example.com:443")
			return
		}
		if err := p.dialer.checkTarget(ctx, host, uint16(port)); err != nil {
			p.failVia(w, r, host, err)
			return
		}
		if r.Method == http.MethodConnect {
			p.tunnelVia(w, r, up, hostport)
			return
		}
		forward.ServeHTTP(w, r)
	})
}

// tunnelVia answers CONNECT by asking the caller's proxy for the same
// tunnel, then splicing the two connections.
func (p *Proxy) tunnelVia(w http.ResponseWriter, r *http.Request, up *Upstream, hostport string) {
	host, _, _ := net.SplitHostPort(hostport)
	conn, err := up.dial(r.Context(), p.dialer)
	if err != nil {
		p.failVia(w, r, host, err)
		return
	}
	idle := p.idleTimeout()
	_ = conn.SetDeadline(time.Now().Add(min(idle, 30*time.Second)))
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if up.auth != "" {
		req += "Proxy-Authorization: " + up.auth + "\r\n"
	}
	br := bufio.NewReader(conn)
	var res *http.Response
	if _, err = io.WriteString(conn, req+"\r\n"); err == nil {
		res, err = http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	}
	if err != nil {
		conn.Close()
		p.failVia(w, r, host, &upstreamError{up: up, err: err})
		return
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		conn.Close()
		p.logger.Info("the caller's proxy refused a tunnel", "proxy", up.String(), "host", host, "status", res.StatusCode)
		p.answer(w, r, http.StatusBadGateway, "proxy-failed", fmt.Sprintf("the proxy %s answered %s to CONNECT %s", up, res.Status, hostport))
		return
	}
	_ = conn.SetDeadline(time.Time{})
	p.join(w, r, conn, br, "host", hostport, "proxy", up.String())
}

// failVia answers a failure on the way through a caller's proxy: the
// proxy's own address refused or unreachable is said apart from the
// target's, which fail as they do without a proxy.
func (p *Proxy) failVia(w http.ResponseWriter, r *http.Request, host string, err error) {
	var ue *upstreamError
	if !errors.As(err, &ue) {
		p.fail(w, r, host, err)
		return
	}
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		p.refused.Add(1)
		p.logger.Info("the egress guard refused a caller's proxy", "proxy", ue.up.String(), "reason", refused.Reason)
		p.answer(w, r, http.StatusForbidden, "proxy-refused", fmt.Sprintf("glimpse does not connect to the proxy %s: %s", ue.up, refused.Error()))
	case r.Context().Err() != nil:
		p.logger.Debug("the browser cancelled a request before the proxy answered", "host", host)
	default:
		p.logger.Info("the caller's proxy could not be reached", "proxy", ue.up.String(), "error", ue.err)
		p.answer(w, r, http.StatusBadGateway, "proxy-unreachable", ue.Error())
	}
}
