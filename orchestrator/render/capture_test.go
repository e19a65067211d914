package render

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// onPage renders startURL with query on a scripted browser serving s and
// runs use on the page while it is held.
func onPage(t *testing.T, s served, raw string, setup func(b *scriptedBrowser), use func(ctx context.Context, p *Page, req *query.Request) error) (*scriptedBrowser, error) {
	t.Helper()
	b := newBrowser(t, s)
	if setup != nil {
		setup(b)
	}
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	ctx, cancel := context.WithTimeout(context.Background(), renderLimit)
	defer cancel()
	req := parse(t, "url="+startURL+raw)
	return b, r.Render(ctx, req, func(ctx context.Context, p *Page) error { return use(ctx, p, req) })
}

// pngOf is a real PNG of w×h pixels, as a browser's capture is.
func pngOf(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestPDFsStreamFromTheBrowser(t *testing.T) {
	t.Parallel()
	chunks := func(replies ...cdptest.Handler) func(b *scriptedBrowser) {
		return func(b *scriptedBrowser) {
			b.handle("Page.printToPDF", cdptest.Result(`{"data":"","stream":"H1"}`))
			b.handle("IO.read", cdptest.Sequence(replies...))
		}
	}
	chunk := func(reply string) cdptest.Handler { return cdptest.Result(reply) }
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name  string
		query string
		setup func(b *scriptedBrowser)
		want  string // the PDF's bytes; "" with an error
		kind  Kind
		err   string // what PrintPDF or the stream fails with
		lost  bool   // the stream fails with the browser lost
		check func(t *testing.T, b *scriptedBrowser)
	}{
		{
			name:  "a PDF is read in chunks, base64 or not, and its stream closed",
			query: "&pdf.landscape=true&pdf.pageRanges=1-2&pdf.margin=1cm",
			setup: chunks(chunk(`{"base64Encoded":true,"data":"`+b64("%PDF-1.7\n")+`","eof":false}`), chunk(`{"base64Encoded":false,"data":"%%EOF","eof":true}`)),
			want:  "%PDF-1.7\n%%EOF",
			check: func(t *testing.T, b *scriptedBrowser) {
				p := paramsSent(t, b, "Page.printToPDF")
				if p["transferMode"] != "ReturnAsStream" || p["landscape"] != true || p["pageRanges"] != "1-2" || p["marginTop"] == 0.0 {
					t.Errorf("the PDF was asked for with %s", jsonOf(p))
				}
				if r := paramsSent(t, b, "IO.read"); r["handle"] != "H1" || r["size"] != float64(readChunk) {
					t.Errorf("the stream was read with %s", jsonOf(r))
				}
				if c := b.sent("IO.close"); len(c) != 1 || jsonOf(paramsOf[map[string]any](t, c[0])) != `{"handle":"H1"}` {
					t.Errorf("the stream was closed with %v; want once", c)
				}
			},
		},
		{
			name:  "page ranges outside the document are the caller's to fix",
			query: "&pdf.pageRanges=40-50",
			setup: func(b *scriptedBrowser) {
				b.handle("Page.printToPDF", cdptest.Error(-32000, "Page range exceeds page count"))
			},
			kind: BadPageRange, err: "`pdf.pageRanges` \"40-50\" is outside the document",
		},
		{
			name:  "a PDF the browser refuses is the service's failure",
			setup: func(b *scriptedBrowser) { b.handle("Page.printToPDF", cdptest.Error(-32000, "Printing failed")) },
			err:   "printing the PDF",
		},
		{
			name:  "a chunk the browser refuses fails the stream",
			setup: chunks(chunk(`{"base64Encoded":false,"data":"%PDF","eof":false}`), cdptest.Error(-32000, "Invalid stream handle")),
			err:   "printing the PDF",
		},
		{
			name:  "a chunk that is not base64 fails the stream",
			setup: chunks(chunk(`{"base64Encoded":true,"data":"%%%","eof":false}`)),
			err:   "decoding a stream chunk",
		},
		{
			name:  "a browser lost mid-stream is the lost browser's error",
			setup: chunks(chunk(`{"base64Encoded":false,"data":"%PDF","eof":false}`), cdptest.Drop),
			lost:  true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []byte
			var lost error
			b, err := onPage(t, served{}, "&pdf"+tc.query, tc.setup, func(ctx context.Context, p *Page, req *query.Request) error {
				s, err := p.PrintPDF(ctx, req.PDF)
				if err != nil {
					return err
				}
				defer s.Close()
				got, err = io.ReadAll(s)
				if err != nil && tc.lost {
					lost = s.Err()
					return nil
				}
				if err != nil {
					return s.Err()
				}
				return s.Close() // and the deferred Close again: the stream is closed once
			})
			switch {
			case tc.lost:
				if !errors.Is(lost, errLeaseLost) {
					t.Errorf("the stream failed with %v; want the browser lost", lost)
				}
			case tc.err == "" && err != nil:
				t.Fatalf("the PDF failed: %v", err)
			case tc.err == "" && string(got) != tc.want:
				t.Errorf("the PDF is %q; want %q", got, tc.want)
			case tc.err != "" && (err == nil || kindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("the PDF failed with %v (kind %v); want kind %v saying %q", err, kindOf(err), tc.kind, tc.err)
			}
			if tc.check != nil && tc.err == "" {
				tc.check(t, b)
			}
		})
	}
}

func TestScreenshotsCaptureTheAreaAsked(t *testing.T) {
	t.Parallel()
	metricsOf := func(w, h float64) func(b *scriptedBrowser) {
		return func(b *scriptedBrowser) {
			b.handle("Page.getLayoutMetrics", cdptest.Result(map[string]any{
				"cssContentSize":    map[string]any{"x": 0, "y": 0, "width": w, "height": h},
				"cssLayoutViewport": map[string]any{"pageX": 0, "pageY": 0, "clientWidth": 1280, "clientHeight": 800},
			}))
		}
	}
	box := func(b map[string]any) served { return served{Eval: answerWith("window.scrollX", b)} }
	cases := []struct {
		name  string
		query string
		serve served
		setup func(b *scriptedBrowser)
		clip  string // the clip asked of the browser, as JSON; "" for none
		kind  Kind
		err   string
		check func(t *testing.T, b *scriptedBrowser, shot *Shot)
	}{
		{
			name: "the viewport is captured as it is",
			check: func(t *testing.T, b *scriptedBrowser, shot *Shot) {
				p := paramsSent(t, b, "Page.captureScreenshot")
				if p["format"] != "png" || p["quality"] != nil || p["fromSurface"] != true {
					t.Errorf("the capture was asked with %s", jsonOf(p))
				}
				if shot.Width != 4 || shot.Height != 3 || len(shot.Data) == 0 {
					t.Errorf("the shot is %dx%d with %d bytes; want the browser's 4x3 image", shot.Width, shot.Height, len(shot.Data))
				}
			},
		},
		{
			name: "a jpeg is captured at the quality asked", query: ".type=jpeg&screenshot.quality=80",
			check: func(t *testing.T, b *scriptedBrowser, _ *Shot) {
				if p := paramsSent(t, b, "Page.captureScreenshot"); p["format"] != "jpeg" || p["quality"] != 80.0 {
					t.Errorf("the capture was asked with %s", jsonOf(p))
				}
			},
		},
		{
			name: "a full page is captured to its content's edge", query: ".fullPage=true", setup: metricsOf(1280.4, 5000),
			clip: `{"height":5000,"scale":1,"width":1281,"x":0,"y":0}`,
		},
		{
			name: "a page too tall for one image is cut at the largest area a browser captures", query: ".fullPage=true", setup: metricsOf(1280, 100000),
			clip: `{"height":13107,"scale":1,"width":1280,"x":0,"y":0}`,
		},
		{
			name: "a page too wide is cut at the largest side", query: ".fullPage=true", setup: metricsOf(50000, 10),
			clip: `{"height":10,"scale":1,"width":16384,"x":0,"y":0}`,
		},
		{
			name: "a page with no content has nothing to capture", query: ".fullPage=true", setup: metricsOf(0, 0),
			kind: Unreadable, err: "no content",
		},
		{
			name: "a browser that does not report the content size is the service's failure", query: ".fullPage=true",
			setup: func(b *scriptedBrowser) { b.handle("Page.getLayoutMetrics", cdptest.Result(nil)) },
			err:   "did not report the page's content size",
		},
		{
			name: "a page the browser cannot measure is the service's failure", query: ".fullPage=true",
			setup: func(b *scriptedBrowser) { b.handle("Page.getLayoutMetrics", cdptest.Error(-32000, "no layout")) },
			err:   "measuring the page",
		},
		{
			name: "an element is captured by its box, rounded outwards", query: ".element=%23card",
			clip: `{"height":200,"scale":1,"width":300,"x":8,"y":101}`,
		},
		{
			name: "an element partly above the document is captured from the document's start", query: ".element=%23card",
			serve: box(map[string]any{"problem": "", "x": -20, "y": -50, "width": 100, "height": 80}),
			clip:  `{"height":30,"scale":1,"width":80,"x":0,"y":0}`,
		},
		{
			name: "an element that matches nothing is the caller's to fix", query: ".element=%23gone",
			serve: box(map[string]any{"problem": "none"}), kind: BadInput, err: "`screenshot.element` `#gone` matches no element",
		},
		{
			name: "an element selector the browser cannot parse is the caller's to fix", query: ".element=a%5B",
			serve: box(map[string]any{"problem": "syntax"}), kind: BadInput, err: "is not a valid CSS selector",
		},
		{
			name: "an element without a visible box is the caller's to fix", query: ".element=%23empty",
			serve: box(map[string]any{"problem": "", "x": 10, "y": 10, "width": 0, "height": 0}), kind: BadInput, err: "no visible box",
		},
		{
			name: "an element the page cannot look for is the service's failure", query: ".element=%23card",
			serve: served{Eval: answer("window.scrollX", func(c *cdptest.Call) { _ = c.Fail(-32000, "no document") })},
			err:   "finding `screenshot.element`",
		},
		{
			name: "a viewport larger than the largest image is cut", query: "&viewport.width=3000&viewport.height=3000&viewport.deviceScaleFactor=2",
			clip: `{"height":1398,"scale":1,"width":3000,"x":0,"y":0}`,
		},
		{
			name: "a transparent background is asked for, and the white one given back", query: ".omitBackground=true",
			check: func(t *testing.T, b *scriptedBrowser, _ *Shot) {
				sent := b.sent("Emulation.setDefaultBackgroundColorOverride")
				if len(sent) != 2 || string(sent[0].Params) != `{"color":{"r":0,"g":0,"b":0,"a":0}}` || string(sent[1].Params) != `{}` {
					t.Errorf("the background was overridden with %v; want transparent, then the default", sent)
				}
			},
		},
		{
			name: "a background the browser cannot make transparent is the service's failure", query: ".omitBackground=true",
			setup: func(b *scriptedBrowser) {
				b.handle("Emulation.setDefaultBackgroundColorOverride", cdptest.Error(-32000, "not supported"))
			},
			err: "making the page's background transparent",
		},
		{
			name: "a faster encoding is asked of the browser when the caller asks for it", query: ".optimizeForSpeed=true",
			check: func(t *testing.T, b *scriptedBrowser, _ *Shot) {
				if sent := b.sent("Page.captureScreenshot"); len(sent) != 1 || !strings.Contains(string(sent[0].Params), `"optimizeForSpeed":true`) {
					t.Errorf("the capture was asked for with %v; want optimizeForSpeed", sent)
				}
			},
		},
		{
			name: "the default encoding is the browser's",
			check: func(t *testing.T, b *scriptedBrowser, _ *Shot) {
				if sent := b.sent("Page.captureScreenshot"); len(sent) != 1 || strings.Contains(string(sent[0].Params), "optimizeForSpeed") {
					t.Errorf("the capture was asked for with %v; want the default encoding", sent)
				}
			},
		},
		{
			name: "a capture the browser refuses is the service's failure",
			setup: func(b *scriptedBrowser) {
				b.handle("Page.captureScreenshot", cdptest.Error(-32000, "Unable to capture"))
			},
			err: "taking the screenshot",
		},
		{
			name:  "an empty capture is the service's failure",
			setup: func(b *scriptedBrowser) { b.handle("Page.captureScreenshot", cdptest.Result(`{"data":""}`)) },
			err:   "empty screenshot",
		},
	}
	image := pngOf(t, 4, 3)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var shot *Shot
			b, err := onPage(t, tc.serve, "&screenshot"+tc.query, func(b *scriptedBrowser) {
				b.handle("Page.captureScreenshot", cdptest.Result(map[string]any{"data": image}))
				if tc.setup != nil {
					tc.setup(b)
				}
			}, func(ctx context.Context, p *Page, req *query.Request) (err error) {
				shot, err = p.Screenshot(ctx, req.Screenshot)
				return err
			})
			if tc.err != "" {
				if err == nil || kindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("the screenshot failed with %v (kind %v); want kind %v saying %q", err, kindOf(err), tc.kind, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the screenshot failed: %v", err)
			}
			p := paramsSent(t, b, "Page.captureScreenshot")
			if clip := jsonOf(p["clip"]); (tc.clip == "" && p["clip"] != nil) || (tc.clip != "" && clip != tc.clip) {
				t.Errorf("the capture's clip is %s; want %s", clip, tc.clip)
			}
			if tc.clip != "" && p["captureBeyondViewport"] != true && !strings.Contains(tc.query, "viewport.") {
				t.Error("a clip was captured without going beyond the viewport")
			}
			if tc.check != nil {
				tc.check(t, b, shot)
			}
		})
	}
}
