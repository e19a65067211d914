package api

import (
	"errors"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// renderCodes is the API code of each kind of render failure.
var renderCodes = map[render.Kind]string{
	render.Unreadable:       apierr.CodeFetch,
	render.TooManyRedirects: apierr.CodeMaxRedirects,
	render.Forbidden:        apierr.CodeForbiddenURL,
	render.Unresolvable:     apierr.CodeInvalidURL,
	render.TimedOut:         apierr.CodeTimeout,
	render.BadInput:         apierr.CodeInvalidQuery,
	render.BadPageRange:     apierr.CodePageRange,
	render.Busy:             apierr.CodeBusy,
	render.BrowserLost:      apierr.CodeFatal,
}

// asError is the one mapping from any failure to the API's error: an
// *apierr.Error as it is, a render's typed error by its kind, anything
// else as apierr.From reads it.
func (s *Server) asError(err error) *apierr.Error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var re *render.Error
	if errors.As(err, &re) {
		return fromRender(re)
	}
	return apierr.From(err)
}

func fromRender(re *render.Error) *apierr.Error {
	var e *apierr.Error
	switch {
	case re.Kind == render.Forbidden && re.Message == "":
		e = apierr.Forbidden(re.URL, re.Reason)
	case re.Kind == render.Unresolvable && re.URL != "":
		e = apierr.Unresolvable(re.URL)
	case re.Kind == render.BadInput:
		e = apierr.Query(re.Param, re.Value, "%s", re.Message)
	default:
		code, ok := renderCodes[re.Kind]
		if !ok {
			return apierr.Fatal(re)
		}
		e = apierr.New(code, re.Message)
		e.Param = re.Param
		if re.URL != "" {
			e.Data = map[string]any{"url": apierr.Clip(re.URL, apierr.MaxDataValue)}
		}
	}
	e.RetryAfter = re.RetryAfter
	e.Err = re
	return e
}
