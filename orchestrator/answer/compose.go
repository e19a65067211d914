package answer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/storage"
)

// maxCandidates bounds how many image or logo candidates are probed before
// the field is given up as null.
const maxCandidates = 4

// Config is what a Composer is built from.
type Config struct {
	Store        storage.Store
	Metrics      *metrics.Orchestrator
	Logger       *slog.Logger
	MaxDataBytes int   // what data rules may put in one answer; 0 is DefaultMaxDataBytes
	MaxFileBytes int64 // the largest PDF or screenshot stored; 0 is DefaultMaxFileBytes
	// FileVersion names one render's files apart from every other render's
	// of the same answer; nil is a fresh time-ordered random version.
	FileVersion func() string
}

// DefaultMaxFileBytes bounds a stored PDF or screenshot.
const DefaultMaxFileBytes = 256 << 20

// Composer turns a visited page into the answer's data object.
type Composer struct {
	probes       *probes
	palettes     *paletteCache
	store        storage.Store
	m            *metrics.Orchestrator
	log          *slog.Logger
	maxDataBytes int
	maxFileBytes int64
	version      func() string
}

// New builds a Composer.
func New(c Config) *Composer {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = DefaultMaxFileBytes
	}
	if c.FileVersion == nil {
		c.FileVersion = newFileVersion
	}
	return &Composer{probes: newProbes(), palettes: newPaletteCache(), store: c.Store, m: c.Metrics, log: c.Logger, maxDataBytes: c.MaxDataBytes,
		maxFileBytes: c.MaxFileBytes, version: c.FileVersion}
}

// Result is one finished answer: the JSON body as sent, and what `embed`
// and x-fetch-mode need.
type Result struct {
	Body      []byte
	Embeds    map[string]string // "pdf.url" → storage key, "image.url" → URL
	Texts     map[string]Text   // the data rule `embed` names → its value
	FetchMode string
	CutShort  bool // the page was still loading when its time was up
	// Degraded: part of the answer is missing for glimpse's reason, not
	// the page's (a probe ran out of the request's time, or glimpse's way
	// out failed), so it is not the page's whole answer.
	Degraded bool
	// Wall is the vendor of the bot wall whose screenshot or PDF this is
	// (the caller asked for no metadata): served, never cached as the page.
	Wall string
}

// Compose builds the answer for req from the page: metadata fields in API
// order, probed assets, data rules, the stored PDF and screenshot, the
// filter. key names the stored files; pre is what was fetched for the
// request before its page.
func (c *Composer) Compose(ctx context.Context, req *query.Request, key string, p *render.Page, pre Prefetched) (*Result, error) {
	var d data
	var degraded bool
	embeds := map[string]string{}
	if req.PDF == nil && req.Screenshot == nil {
		// Everything left (rules, asset probes) works without the page:
		// the browser goes back to the pool now.
		p.Release()
	}
	if f := p.File; f != nil {
		// Checked first: the answer would otherwise be built for nothing.
		// A PDF target is printed by nobody: what the browser would print
		// is its viewer, not the document, which is at data.url already.
		if req.PDF != nil && (!f.Shown || f.MediaType == "application/pdf") {
			return nil, notAPage("pdf", f)
		}
		if req.Screenshot != nil && !f.Shown {
			return nil, notAPage("screenshot", f)
		}
	}
	var fdoc *fileDocument
	if p.File != nil && (!req.MetaOff || len(req.Data) > 0) {
		fdoc = c.readDocument(ctx, p, len(req.Data) > 0)
	}
	wall, err := c.wall(req, p)
	if err != nil {
		return nil, err
	}
	switch {
	case req.MetaOff:
	case p.File != nil:
		d = append(d, fileMetadata(req, p, embeds, fdoc.read())...)
		if req.Extras.Palette && req.Ping {
			c.filePalette(ctx, req, p, d)
		}
	case p.Doc != nil:
		d = append(d, c.metadata(ctx, req, p, embeds, &degraded)...)
	}
	d = append(d, c.extras(ctx, req, p, d, &degraded)...)
	var texts map[string]Text
	doc := p.Doc
	if doc == nil && p.File != nil {
		doc = emptyDocument()
	}
	if p.File != nil {
		// A document the browser showed (a PDF in its viewer) is read
		// from the file, not from the viewer's page.
		if fdoc != nil && len(req.Data) > 0 {
			// The rules read the document's content: one that cannot be
			// read says why rather than answering nothing.
			if fdoc.err != nil {
				return nil, fdoc.err
			}
			doc = documentPage(fdoc.doc)
		}
	}
	if len(req.Data) > 0 && doc != nil {
		rules, assets, err := applyDataRules(ctx, doc, p.URL, req.Data, c.maxDataBytes, p.Evaluated)
		if err != nil {
			return nil, err
		}
		if req.Ping {
			c.probeDataAssets(ctx, req, p.Assets, assets)
		}
		if !req.MetaOff {
			if rules, err = withFrontmatter(rules, req.Data, d); err != nil {
				return nil, apierr.Fatal(err)
			}
		}
		for i, r := range req.Data {
			if r.Name == req.Embed && rules[i].value != nil {
				t, err := embedText(r, rules[i].value)
				if err != nil {
					return nil, apierr.Fatal(err)
				}
				texts = map[string]Text{r.Name: t}
			}
		}
		d = append(d, rules...)
	}
	if o := req.PDF; o != nil {
		stream, err := p.PrintPDF(ctx, o)
		if err != nil {
			return nil, err
		}
		a, objKey, err := c.storeFile(ctx, "pdf/"+key+"-"+c.version()+".pdf", stream, -1, "application/pdf", "PDF")
		stream.Close()
		if err != nil {
			if serr := stream.Err(); serr != nil {
				return nil, serr
			}
			return nil, err
		}
		a.Type = "pdf"
		c.m.PDFs.Inc()
		c.m.PDFBytes.Add(float64(a.Size))
		d = append(d, field{"pdf", a})
		embeds["pdf.url"] = objKey
	}
	if o := req.Screenshot; o != nil {
		capture := o
		if o.Overlay.On() {
			// Composed here and encoded once: the capture is lossless.
			lossless := *o
			lossless.Type, lossless.Quality = "png", 0
			capture = &lossless
		}
		shot, err := p.Screenshot(ctx, capture)
		if err != nil {
			return nil, err
		}
		if o.Overlay.On() {
			start := time.Now()
			shot.Data, shot.Width, shot.Height, err = composeOverlay(ctx, o, shot.Data, pre.Background)
			if err != nil {
				return nil, apierr.From(err)
			}
			c.m.Phase.WithLabelValues(metrics.PhaseOverlay).Observe(time.Since(start).Seconds())
		}
		contentType, ext := o.Media()
		a, objKey, err := c.storeFile(ctx, "shot/"+key+"-"+c.version()+"."+ext, bytes.NewReader(shot.Data), int64(len(shot.Data)), contentType, "screenshot")
		if err != nil {
			return nil, err
		}
		a.Width, a.Height = shot.Width, shot.Height
		if req.Extras.Palette {
			a.Palette = c.shotPalette(ctx, shot.Data)
		}
		d = append(d, field{"screenshot", a})
		embeds["screenshot.url"] = objKey
	}
	d = applyFilter(d, req.Filter)
	body, err := successBody(d, p.Response)
	if err != nil {
		return nil, apierr.Fatal(err)
	}
	mode := p.FetchMode
	if req.MetaOff {
		mode = "skipped"
	}
	return &Result{Body: body, Embeds: embeds, Texts: texts, FetchMode: mode, CutShort: p.CutShort, Degraded: degraded, Wall: wall}, nil
}

// metadata is the fields of req in API order, with image and logo probed.
func (c *Composer) metadata(ctx context.Context, req *query.Request, p *render.Page, embeds map[string]string, degraded *bool) data {
	var res meta.Result
	if p.Meta != nil {
		res = *p.Meta
	} else {
		res = meta.Extract(p.Doc, p.URL)
	}
	want := map[string]bool{}
	for _, f := range req.Fields {
		want[f] = true
	}
	var image, logo *Asset
	var imageDegraded, logoDegraded atomic.Bool
	probeStart := time.Now()
	// Probes get what is left of the request's budget minus a reserve for
	// answering: an image that never answers costs the image, not the
	// whole answer.
	pctx, cancelProbes := context.WithCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		reserve := max(500*time.Millisecond, req.Timeout/10)
		pctx, cancelProbes = context.WithDeadline(ctx, dl.Add(-reserve))
	}
	defer cancelProbes()
	// Probe results serve other requests only when the caller's headers
	// did not go with the fetches.
	shared := len(req.Headers) == 0
	var wg sync.WaitGroup
	if want["image"] {
		wg.Go(recovered(c.log, "image", func() {
			var d bool
			image, d = c.pick(pctx, p.Assets, shared, req.Ping, res.Image)
			imageDegraded.Store(d)
			if req.Extras.Palette && req.Ping {
				image = c.withPalette(pctx, p.Assets, shared, image)
			}
		}))
	}
	if want["logo"] {
		wg.Go(recovered(c.log, "logo", func() {
			cands := res.Logo
			if req.Ping {
				cands = withManifestIcons(pctx, p, cands)
			}
			var d bool
			logo, d = c.pick(pctx, p.Assets, shared, req.Ping, cands)
			logoDegraded.Store(d)
			if req.Extras.Palette && req.Ping {
				logo = c.withPalette(pctx, p.Assets, shared, logo)
			}
		}))
	}
	wg.Wait()
	if imageDegraded.Load() || logoDegraded.Load() {
		*degraded = true
	}
	if want["image"] || want["logo"] {
		c.m.Phase.WithLabelValues("probe").Observe(time.Since(probeStart).Seconds())
	}
	d := make(data, 0, len(req.Fields))
	for _, f := range req.Fields {
		switch f {
		case "title":
			d = append(d, field{f, res.Title})
		case "description":
			d = append(d, field{f, res.Description})
		case "lang":
			d = append(d, field{f, res.Lang})
		case "author":
			d = append(d, field{f, res.Author})
		case "publisher":
			d = append(d, field{f, res.Publisher})
		case "image":
			d = append(d, field{f, assetOrNil(image)})
			if image != nil {
				embeds["image.url"] = image.URL
			}
		case "date":
			d = append(d, field{f, res.Date})
		case "datePublished":
			d = append(d, field{f, res.DatePublished})
		case "dateModified":
			d = append(d, field{f, res.DateModified})
		case "url":
			u := res.URL
			if u == nil {
				fu := p.URL.String()
				u = &fu
			}
			d = append(d, field{f, u})
		case "logo":
			d = append(d, field{f, assetOrNil(logo)})
			if logo != nil {
				embeds["logo.url"] = logo.URL
			}
		}
	}
	return d
}

// maxDataProbes bounds the asset objects of the data rules probed for one
// answer; a `selectorAll` of images may give a thousand. The rest keep
// their url and type.
const maxDataProbes = 16

// probeDataAssets fills in the asset objects the data rules gave (size,
// dimensions) the way the image and logo fields are probed, on the same
// budget: an asset that cannot be fetched, or is not of its kind, keeps
// its url and type.
func (c *Composer) probeDataAssets(ctx context.Context, req *query.Request, src render.Source, assets []dataAsset) {
	if len(assets) == 0 || src == nil {
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		reserve := max(500*time.Millisecond, req.Timeout/10)
		pctx, cancel = context.WithDeadline(ctx, dl.Add(-reserve))
	}
	defer cancel()
	start := time.Now()
	shared := len(req.Headers) == 0
	var wg sync.WaitGroup
	for _, da := range assets[:min(len(assets), maxDataProbes)] {
		wg.Go(recovered(c.log, "a data rule's asset", func() {
			var got *Asset
			var err error
			if da.media {
				got, err = probeMedia(pctx, src, da.a.URL)
			} else {
				got, err = c.probes.probe(pctx, src, da.a.URL, shared)
			}
			if err != nil {
				c.log.Debug("a data rule's asset was not probed", "err", err)
				return
			}
			url := da.a.URL
			*da.a = *got
			da.a.URL = url
		}))
	}
	wg.Wait()
	c.m.Phase.WithLabelValues("probe").Observe(time.Since(start).Seconds())
}

// assetOrNil keeps a nil *Asset a JSON null rather than a typed nil.
func assetOrNil(a *Asset) any {
	if a == nil {
		return nil
	}
	return a
}

// pickAsset returns the first candidate, in rank order, that is a real
// image. The candidates are probed at once, each URL once, so a host that
// never answers costs one probe's budget rather than holding the ones
// after it. With ping off nothing is fetched: the first candidate stands
// with its url and type.
func (c *Composer) pickAsset(ctx context.Context, src render.Source, shared, ping bool, cands []meta.Candidate) *Asset {
	a, _ := c.pick(ctx, src, shared, ping, cands)
	return a
}

// pick is pickAsset, and whether its answer is degraded: a candidate
// ranked before the one picked (or every one, when none is) was not
// judged on its own merit, because the request's time ran out or
// glimpse's own way out failed. Such an answer is not the page's whole
// answer and must not be kept as if it were.
func (c *Composer) pick(ctx context.Context, src render.Source, shared, ping bool, cands []meta.Candidate) (picked *Asset, degraded bool) {
	cands = slices.DeleteFunc(slices.Clone(cands), func(c meta.Candidate) bool { return len(c.URL) > MaxAssetURLBytes })
	if len(cands) == 0 {
		return nil, false
	}
	if !ping {
		// Without fetching, only what the page itself declares is
		// reported: the /favicon.ico guess is worth something only once
		// a probe has shown it exists.
		for _, cand := range cands {
			if cand.Source != "favicon.ico" {
				return &Asset{URL: cand.URL, Type: cand.Type}, false
			}
		}
		return nil, false
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		a   *Asset
		err error
	}
	n := min(len(cands), maxCandidates)
	results := make([]chan outcome, n)
	for i := range n {
		results[i] = make(chan outcome, 1)
		go func() {
			a, err := c.probes.probe(ctx, src, cands[i].URL, shared)
			results[i] <- outcome{a, err}
		}()
	}
	for i := range n {
		select {
		case o := <-results[i]:
			if o.err == nil {
				return o.a, degraded
			}
			if ctx.Err() != nil || errors.Is(o.err, render.ErrEgress) {
				degraded = true
			}
			c.log.Debug("an asset candidate was dropped", "err", o.err)
		case <-ctx.Done():
			return nil, true
		}
	}
	return nil, degraded
}

// withManifestIcons ranks the web app manifest's icons in with the
// page's own.
func withManifestIcons(ctx context.Context, p *render.Page, cands []meta.Candidate) []meta.Candidate {
	mu := meta.ManifestURL(p.Doc, p.URL)
	if mu == "" {
		return cands
	}
	body, manifestURL, err := fetchText(ctx, p.Assets, mu, 256<<10)
	if err != nil {
		return cands
	}
	return meta.MergeLogos(cands, meta.IconsFromManifest(body, manifestURL))
}

// storeFile stores one file the answer links to, under the public prefix,
// and describes it as the API's file object. what names the file in the
// error a caller gets when storage is away.
func (c *Composer) storeFile(ctx context.Context, name string, r io.Reader, size int64, contentType, what string) (*Asset, string, error) {
	start := time.Now()
	objKey := storage.PublicPrefix + name
	if size > c.maxFileBytes {
		return nil, "", fileTooLarge(what, c.maxFileBytes)
	}
	capped := &cappedReader{r: r, left: c.maxFileBytes}
	obj, err := c.store.Put(ctx, objKey, capped, size, contentType)
	if capped.over {
		return nil, "", fileTooLarge(what, c.maxFileBytes)
	}
	if err != nil {
		c.m.StorageErrors.WithLabelValues("put").Inc()
		return nil, "", StorageError("Storing the "+what+" failed because file storage is unreachable; try again shortly.", err)
	}
	c.m.Phase.WithLabelValues("upload").Observe(time.Since(start).Seconds())
	return &Asset{
		URL: c.store.URL(objKey), Type: meta.TypeFromContentType(contentType),
		Size: obj.Size, SizePretty: meta.PrettyBytes(obj.Size),
	}, objKey, nil
}

// newFileVersion is a version no other render of the same answer has:
// time-ordered, so an operator sees which is newer, and random within the
// millisecond.
func newFileVersion() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strconv.FormatInt(time.Now().UnixMilli(), 36) + hex.EncodeToString(b[:])
}

// cappedReader fails a read past left bytes, so a file too large to keep
// stops streaming at the cap instead of after it has all been stored.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

var errFileTooLarge = errors.New("the file is larger than GLIMPSE_MAX_FILE_BYTES")

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.over {
		return 0, errFileTooLarge
	}
	// One byte past the cap tells a file of exactly the cap from a
	// larger one.
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.over = true
		return 0, errFileTooLarge
	}
	c.left -= int64(n)
	return n, err
}

// fileTooLarge is the caller's answer when a PDF or screenshot passes the
// cap: what to ask for instead.
func fileTooLarge(what string, limit int64) error {
	e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf(
		"The %s is larger than %d bytes, the most glimpse stores (GLIMPSE_MAX_FILE_BYTES); ask for less of the page, such as fewer pages with `pdf.pageRanges`.",
		what, limit))
	e.Param = strings.ToLower(what)
	return e
}

// StorageError is ESTORAGE: file storage is away, which only answers that
// store or read a file feel.
func StorageError(msg string, cause error) *apierr.Error {
	e := apierr.New(apierr.CodeStorage, msg)
	e.RetryAfter = 5 * time.Second
	e.Err = cause
	return e
}
