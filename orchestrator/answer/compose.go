package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/storage"
)

// maxCandidates bounds how many image or logo candidates are probed before
// the field is given up as null.
const maxCandidates = 4

// compose turns a visited page into the cached answer: metadata fields in
// API order, probed assets, and the stored PDF.
func (s *Server) compose(ctx context.Context, lease *pool.Lease, req *Request, key string, r *rendered) (*Entry, error) {
	var d data
	embeds := map[string]string{}
	if lease != nil && req.PDF == nil && req.Screenshot == nil {
		// Everything left (rules, asset probes) works without the page:
		// the browser goes back to the pool now.
		lease.Release()
	}
	if !req.MetaOff && r.doc != nil {
		var res meta.Result
		if r.meta != nil {
			res = *r.meta
		} else {
			res = meta.Extract(r.doc, r.finalURL)
		}
		want := map[string]bool{}
		for _, f := range req.Fields {
			want[f] = true
		}
		var image, logo *Asset
		probeStart := time.Now()
		// Probes get what is left of the request's budget minus a reserve
		// for answering: an image that never answers costs the image, not
		// the whole answer.
		pctx, cancelProbes := context.WithCancel(ctx)
		if dl, ok := ctx.Deadline(); ok {
			reserve := max(500*time.Millisecond, req.Timeout/10)
			pctx, cancelProbes = context.WithDeadline(ctx, dl.Add(-reserve))
		}
		defer cancelProbes()
		var wg sync.WaitGroup
		if want["image"] {
			wg.Add(1)
			go func() { defer wg.Done(); image = s.pickAsset(pctx, r, req.Ping, res.Image) }()
		}
		if want["logo"] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cands := res.Logo
				if req.Ping {
					cands = s.withManifestIcons(pctx, r, cands)
				}
				logo = s.pickAsset(pctx, r, req.Ping, cands)
			}()
		}
		wg.Wait()
		if want["image"] || want["logo"] {
			s.m.Phase.WithLabelValues("probe").Observe(time.Since(probeStart).Seconds())
		}
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
			case "url":
				u := res.URL
				if u == nil {
					fu := r.finalURL.String()
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
	}
	if len(req.Data) > 0 && r.doc != nil {
		d = append(d, applyDataRules(r.doc, r.finalURL, req.Data)...)
	}
	if req.PDF != nil {
		a, objKey, err := s.printPDF(ctx, lease, req, key)
		if err != nil {
			return nil, err
		}
		d = append(d, field{"pdf", a})
		embeds["pdf.url"] = objKey
	}
	if req.Screenshot != nil {
		a, objKey, err := s.captureScreenshot(ctx, lease, req, key)
		if err != nil {
			return nil, err
		}
		d = append(d, field{"screenshot", a})
		embeds["screenshot.url"] = objKey
	}
	d = applyFilter(d, req.Filter)
	body, err := successBody(d)
	if err != nil {
		return nil, Fatal(err)
	}
	sum := sha256.Sum256(body)
	now := s.now()
	mode := r.fetchMode
	if req.MetaOff {
		mode = "skipped"
	}
	return &Entry{
		Key: key, Body: body, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`,
		Created: now, Expires: now.Add(req.TTL + req.StaleTTL), TTL: req.TTL, FetchMode: mode, Embeds: embeds,
	}, nil
}

// assetOrNil keeps a nil *Asset a JSON null rather than a typed nil.
func assetOrNil(a *Asset) any {
	if a == nil {
		return nil
	}
	return a
}

// pickAsset returns the first candidate that is a real image. With ping
// off nothing is fetched: the first candidate stands with its url and type.
func (s *Server) pickAsset(ctx context.Context, r *rendered, ping bool, cands []meta.Candidate) *Asset {
	if len(cands) == 0 {
		return nil
	}
	if !ping {
		// Without fetching, only what the page itself declares is
		// reported: the /favicon.ico guess is worth something only once
		// a probe has shown it exists.
		for _, c := range cands {
			if c.Source != "favicon.ico" {
				return &Asset{URL: c.URL, Type: c.Type}
			}
		}
		return nil
	}
	for i, c := range cands {
		if i == maxCandidates || ctx.Err() != nil {
			break
		}
		a, err := probeAsset(ctx, r.src, c.URL)
		if err != nil {
			s.log.Debug("an asset candidate was dropped", "err", err)
			continue
		}
		return a
	}
	return nil
}

// withManifestIcons ranks the web app manifest's icons in with the
// page's own.
func (s *Server) withManifestIcons(ctx context.Context, r *rendered, cands []meta.Candidate) []meta.Candidate {
	mu := meta.ManifestURL(r.doc, r.finalURL)
	if mu == "" {
		return cands
	}
	body, manifestURL, err := fetchText(ctx, r.src, mu, 256<<10)
	if err != nil {
		return cands
	}
	return meta.MergeLogos(cands, meta.IconsFromManifest(body, manifestURL))
}

// printPDF prints the page and streams the PDF into storage.
func (s *Server) printPDF(ctx context.Context, lease *pool.Lease, req *Request, key string) (*Asset, string, error) {
	o := req.PDF
	start := time.Now()
	landscape, bg := o.Landscape, o.PrintBackground
	top, right, bottom, left := o.Margin.Top, o.Margin.Right, o.Margin.Bottom, o.Margin.Left
	res, err := cdp.Execute(ctx, lease.Session, page.PrintToPDF, page.PrintToPDFParams{
		Landscape: &landscape, PrintBackground: &bg, Scale: o.Scale,
		PaperWidth: o.Width, PaperHeight: o.Height,
		MarginTop: &top, MarginRight: &right, MarginBottom: &bottom, MarginLeft: &left,
		PageRanges:   o.PageRanges,
		TransferMode: page.PrintToPDFTransferModeReturnAsStream,
	})
	if err != nil {
		var pe *cdp.Error
		if errors.As(err, &pe) && strings.Contains(strings.ToLower(pe.Message), "range") {
			return nil, "", &Error{Code: "EPAGERANGE", Status: 400, Param: "pdf.pageRanges", Err: err,
				Message: fmt.Sprintf("`pdf.pageRanges` %q is outside the document; ask for pages the document has.", o.PageRanges)}
		}
		return nil, "", s.browserError(ctx, "printing the PDF", err)
	}
	stream := newStreamReader(ctx, lease.Session, res.Stream)
	defer stream.Close()
	s.m.Phase.WithLabelValues("pdf").Observe(time.Since(start).Seconds())

	upStart := time.Now()
	objKey := storage.PublicPrefix + "pdf/" + key + ".pdf"
	obj, err := s.deps.Store.Put(ctx, objKey, stream, -1, "application/pdf")
	if err != nil {
		if stream.err != nil && !errors.Is(stream.err, errStreamDone) {
			return nil, "", s.browserError(ctx, "printing the PDF", stream.err)
		}
		s.m.StorageErrors.WithLabelValues("put").Inc()
		return nil, "", &Error{Code: "EFATAL", Status: 503, RetryAfter: 5 * time.Second, Err: err,
			Message: "Storing the PDF failed because file storage is unreachable; try again shortly."}
	}
	s.m.Phase.WithLabelValues("upload").Observe(time.Since(upStart).Seconds())
	s.m.PDFs.Inc()
	s.m.PDFBytes.Add(float64(obj.Size))
	return &Asset{URL: s.deps.Store.URL(objKey), Type: "pdf", Size: obj.Size, SizePretty: meta.PrettyBytes(obj.Size)}, objKey, nil
}
