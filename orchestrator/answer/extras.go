package answer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// Insights is Microlink's `insights` field. Only technologies are read:
// Lighthouse audits are not run (the request names them in
// x-glimpse-ignored).
type Insights struct {
	Technologies []meta.Technology `json:"technologies"`
}

// extras is the answer's `video`, `audio`, `iframe` and `insights`
// fields, in that order, for those the request asks for: read from the
// page's document and fetched through its egress path on the probes'
// budget. A part that cannot be had is null; one that failed for
// glimpse's own reason (its time ran out, its way out failed) marks the
// answer degraded.
func (c *Composer) extras(ctx context.Context, req *query.Request, p *render.Page, have data, degraded *bool) data {
	e := req.Extras
	if !(e.Video || e.Audio || e.Iframe != nil || e.Technologies) {
		return nil
	}
	if p.File != nil || p.Doc == nil {
		return fileExtras(req, p, have)
	}
	pctx, cancel := context.WithCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		reserve := max(500*time.Millisecond, req.Timeout/10)
		pctx, cancel = context.WithDeadline(ctx, dl.Add(-reserve))
	}
	defer cancel()
	start := time.Now()
	var video, audio *Asset
	var iframe *Iframe
	var mu sync.Mutex
	short := func(err error) {
		if err != nil && (pctx.Err() != nil || errors.Is(err, render.ErrEgress)) {
			mu.Lock()
			*degraded = true
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	if e.Video || e.Audio {
		videos, audios := meta.Media(p.Doc, p.URL)
		if e.Video {
			wg.Go(func() {
				var err error
				video, err = c.pickMedia(pctx, p.Assets, req.Ping, videos)
				short(err)
			})
		}
		if e.Audio {
			wg.Go(func() {
				var err error
				audio, err = c.pickMedia(pctx, p.Assets, req.Ping, audios)
				short(err)
			})
		}
	}
	if e.Iframe != nil {
		if links := meta.OEmbedLinks(p.Doc, p.URL); len(links) > 0 && p.Assets != nil {
			wg.Go(func() {
				var err error
				iframe, err = fetchIframe(pctx, p.Assets, links, e.Iframe)
				if err != nil {
					c.log.Debug("the page's oEmbed was not read", "err", err)
				}
				short(err)
			})
		}
	}
	var insights *Insights
	if e.Technologies {
		signals := meta.PageSignals{Doc: p.Doc, URL: p.URL}
		if r := p.Response; r != nil {
			signals.Headers, signals.Cookies = r.Headers, r.Cookies
		}
		insights = &Insights{Technologies: meta.DetectTechnologies(signals)}
		if insights.Technologies == nil {
			insights.Technologies = []meta.Technology{}
		}
	}
	wg.Wait()
	c.m.Phase.WithLabelValues("probe").Observe(time.Since(start).Seconds())
	var d data
	if e.Video {
		d = append(d, field{"video", assetOrNil(video)})
	}
	if e.Audio {
		d = append(d, field{"audio", assetOrNil(audio)})
	}
	if e.Iframe != nil {
		var v any
		if iframe != nil {
			v = iframe
		}
		d = append(d, field{"iframe", v})
	}
	if insights != nil {
		d = append(d, field{"insights", insights})
	}
	return d
}

// pickMedia returns the first candidate, in rank order, that answers as
// audio or video, described from its response headers and what the page
// declares of it (dimensions, duration). The candidates are probed at
// once, as images are, so one that never answers costs one probe's
// budget, not one per candidate after it. With ping off the first stands
// with its url and type. The error is the last candidate's, when none
// answered.
func (c *Composer) pickMedia(ctx context.Context, src render.Source, ping bool, cands []meta.MediaCandidate) (*Asset, error) {
	cands = slices.DeleteFunc(slices.Clone(cands), func(m meta.MediaCandidate) bool { return len(m.URL) > MaxAssetURLBytes })
	cands = cands[:min(len(cands), maxCandidates)]
	if len(cands) == 0 {
		return nil, nil
	}
	if !ping {
		m := cands[0]
		return &Asset{URL: m.URL, Type: m.Type, Width: m.Width, Height: m.Height, Duration: m.Duration}, nil
	}
	if src == nil {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		a   *Asset
		err error
	}
	results := make([]chan outcome, len(cands))
	for i, m := range cands {
		results[i] = make(chan outcome, 1)
		go func() {
			a, err := probeMedia(ctx, src, m.URL)
			results[i] <- outcome{a, err}
		}()
	}
	var last error
	for i, m := range cands {
		select {
		case o := <-results[i]:
			if o.err != nil {
				c.log.Debug("a media candidate was dropped", "err", o.err)
				last = o.err
				continue
			}
			a := o.a
			if a.Type == "" {
				a.Type = m.Type
			}
			a.Width, a.Height, a.Duration = m.Width, m.Height, m.Duration
			return a, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, last
}

// withPalette is a copy of the asset with its palette, when it can be
// read; the asset itself, unchanged, when it cannot. The copy keeps a
// probe's remembered result, which other requests share, as it was.
// Palettes read without the caller's headers (shared) are remembered.
func (c *Composer) withPalette(ctx context.Context, src render.Source, shared bool, a *Asset) *Asset {
	if a == nil || src == nil {
		return a
	}
	pal, known := (*Palette)(nil), false
	if shared {
		pal, known = c.palettes.get(a.URL)
	}
	if !known {
		var err error
		pal, err = fetchPalette(ctx, src, a.URL)
		if err != nil {
			c.log.Debug("no palette for the asset", "url", a.URL, "err", err)
		}
		// A failure of the request's own time or of glimpse's way out
		// says nothing of the image.
		if shared && ctx.Err() == nil && !errors.Is(err, render.ErrEgress) {
			c.palettes.put(a.URL, pal)
		}
	}
	if pal == nil {
		return a
	}
	withPal := *a
	withPal.Palette = pal
	return &withPal
}

// shotPalette is the screenshot's palette, read from the capture glimpse
// made; nil when it cannot be read in the time left.
func (c *Composer) shotPalette(ctx context.Context, shot []byte) *Palette {
	ctx, cancel := context.WithTimeout(ctx, paletteBudget)
	defer cancel()
	pal, err := paletteOf(ctx, shot)
	if err != nil {
		c.log.Debug("no palette for the screenshot", "err", err)
		return nil
	}
	return pal
}

// fileExtras are the extras of a target that is a file: a video or audio
// file is its own `video` or `audio` (which its metadata may have given
// already), it has no oEmbed, and its technologies are those its
// response headers show.
func fileExtras(req *query.Request, p *render.Page, have data) data {
	e := req.Extras
	var d data
	has := func(name string) bool {
		return slices.ContainsFunc(have, func(f field) bool { return f.name == name })
	}
	for _, kind := range []string{"video", "audio"} {
		if (kind == "video" && !e.Video) || (kind == "audio" && !e.Audio) || has(kind) {
			continue
		}
		var v any
		if f := p.File; f != nil && strings.HasPrefix(f.MediaType, kind+"/") {
			v = fileAsset(p.URL.String(), f)
		}
		d = append(d, field{kind, v})
	}
	if e.Iframe != nil {
		d = append(d, field{"iframe", nil})
	}
	if e.Technologies {
		signals := meta.PageSignals{URL: p.URL}
		if r := p.Response; r != nil {
			signals.Headers, signals.Cookies = r.Headers, r.Cookies
		}
		techs := meta.DetectTechnologies(signals)
		if techs == nil {
			techs = []meta.Technology{}
		}
		d = append(d, field{"insights", &Insights{Technologies: techs}})
	}
	return d
}

// filePalette adds the palette to an image target's own image object.
func (c *Composer) filePalette(ctx context.Context, req *query.Request, p *render.Page, d data) {
	for i, f := range d {
		if a, ok := f.value.(*Asset); ok && f.name == "image" {
			pctx, cancel := context.WithTimeout(ctx, paletteBudget)
			d[i].value = c.withPalette(pctx, p.Assets, len(req.Headers) == 0, a)
			cancel()
		}
	}
}
