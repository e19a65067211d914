package api

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// urlInText finds what may be a URL inside an error's text: a scheme and
// everything up to a space or a quote.
var urlInText = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>` + "`" + `]+`)

// redactURLs rewrites every URL in text as its scheme, host and path:
// error chains quote the URLs they failed on, query strings, fragments
// and user-info included, and those may hold a caller's tokens.
func redactURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return urlInText.ReplaceAllStringFunc(text, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			scheme, _, _ := strings.Cut(raw, "://")
			return scheme + "://<unparseable>"
		}
		return u.Scheme + "://" + u.Host + u.EscapedPath()
	})
}

// redactingHandler passes every log record on with the URLs inside its
// errors and their text redacted, whichever error path wrote them and
// whichever format the log has.
type redactingHandler struct{ next slog.Handler }

func newRedactingLogger(l *slog.Logger) *slog.Logger {
	if _, ok := l.Handler().(redactingHandler); ok {
		return l
	}
	return slog.New(redactingHandler{l.Handler()})
}

func (h redactingHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, redactURLs(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return redactingHandler{h.next.WithAttrs(red)}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h.next.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redactURLs(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		red := make([]any, len(attrs))
		for i, g := range attrs {
			red[i] = redactAttr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redactURLs(err.Error()))
		}
	}
	return a
}
