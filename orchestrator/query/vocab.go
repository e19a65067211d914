package query

import (
	"strconv"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// Extras are the parts of Microlink's answer beyond the metadata fields
// that a caller turns on one by one: `video`, `audio`, `iframe`,
// `palette` and `insights.technologies`. They hold plain values only:
// the cache key prints them with %+v.
type Extras struct {
	Video, Audio bool
	// Iframe is the page's oEmbed; nil when not asked for.
	Iframe *IframeOptions
	// Palette adds the dominant colours to the image and logo (and the
	// screenshot) objects.
	Palette bool
	// Technologies is `insights.technologies`: what the page is built with.
	Technologies bool
}

// IframeOptions are `iframe.maxWidth` and `iframe.maxHeight`, sent to
// the oEmbed provider as `maxwidth` and `maxheight`; 0 when not given.
type IframeOptions struct {
	MaxWidth, MaxHeight int
}

// Any reports whether any extra was asked for.
func (e Extras) Any() bool {
	return e.Video || e.Audio || e.Iframe != nil || e.Palette || e.Technologies
}

// ReadsPage reports whether the answer needs the page's document: for its
// metadata, its data rules or one of the extras. A request that needs
// none of them (meta=false alone) is answered without visiting the page.
func (r *Request) ReadsPage() bool {
	return !r.MetaOff || len(r.Data) > 0 || r.Extras.Video || r.Extras.Audio || r.Extras.Iframe != nil || r.Extras.Technologies
}

// maxIframeSide bounds `iframe.maxWidth` and `iframe.maxHeight`.
const maxIframeSide = 100_000

// extraNames maps every accepted spelling of an extra to its name.
var extraNames = map[string]string{
	"video": "video", "audio": "audio", "palette": "palette",
	"iframe": "iframe", "iframe.maxWidth": "iframe.maxWidth", "iframe.max_width": "iframe.maxWidth",
	"iframe.maxHeight": "iframe.maxHeight", "iframe.max_height": "iframe.maxHeight",
	"insights": "insights", "insights.technologies": "insights.technologies",
}

// extraParam recognises the spellings of an extra.
func extraParam(name string) (string, bool) {
	c, ok := extraNames[name]
	return c, ok
}

// parseExtras reads the extras. Like `pdf`, a bare `iframe` means true
// and an `iframe.<option>` turns it on; `iframe=false` beside one is a
// contradiction. `insights` turns on every insight glimpse has, which is
// `insights.technologies`: Lighthouse audits are not run (see
// ignoredOptions), so `insights=true` names `insights.lighthouse` in
// req.Ignored, as `insights.lighthouse` itself is.
func parseExtras(q *query, req *Request) error {
	flag := func(name string) (value, given bool, err error) {
		p, ok := q.get(name)
		if !ok {
			return false, false, nil
		}
		v, ok := parseBool(p.value)
		if !ok {
			return false, true, boolError(p)
		}
		return v, true, nil
	}
	var err error
	e := &req.Extras
	if e.Video, _, err = flag("video"); err != nil {
		return err
	}
	if e.Audio, _, err = flag("audio"); err != nil {
		return err
	}
	if e.Palette, _, err = flag("palette"); err != nil {
		return err
	}
	insights, insightsGiven, err := flag("insights")
	if err != nil {
		return err
	}
	techs, techsGiven, err := flag("insights.technologies")
	if err != nil {
		return err
	}
	switch {
	case techsGiven:
		if techs && insightsGiven && !insights {
			p, _ := q.get("insights")
			return apierr.Query(p.given, p.value, "`%s` is false but `insights.technologies` asks for an insight; drop one of them.", p.given)
		}
		e.Technologies = techs
	case insightsGiven:
		e.Technologies = insights
	}
	if _, named := q.get("insights.lighthouse"); insights && !named {
		req.Ignored = append(req.Ignored, "insights.lighthouse")
	}

	iframe, iframeGiven, err := flag("iframe")
	if err != nil {
		return err
	}
	var opts IframeOptions
	var first *param
	for _, side := range []struct {
		name string
		to   *int
	}{{"iframe.maxWidth", &opts.MaxWidth}, {"iframe.maxHeight", &opts.MaxHeight}} {
		p, ok := q.get(side.name)
		if !ok {
			continue
		}
		if first == nil {
			first = p
		}
		v := strings.TrimSpace(p.value)
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxIframeSide || strings.HasPrefix(v, "+") {
			return apierr.Query(p.given, p.value, "`%s` must be a whole number of pixels from 1 to %d, got %s.", p.given, maxIframeSide, apierr.Show(p.value))
		}
		*side.to = n
	}
	switch {
	case first != nil && iframeGiven && !iframe:
		p, _ := q.get("iframe")
		return apierr.Query(p.given, p.value, "`%s` is false but `%s` asks for an iframe; drop one of them.", p.given, first.given)
	case first != nil || iframe:
		e.Iframe = &opts
	}
	return nil
}
