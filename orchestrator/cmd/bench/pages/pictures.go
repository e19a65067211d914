package pages

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// A real page of the corpus comes without its subresources, and the
// machine running the benchmark has no internet to fetch them from. Its
// scripts, stylesheets and fonts stay blocked (corpusPolicy): what they
// would cost is unknown. Its pictures do not: the page declares them, and
// a picture costs about what its pixels cost to fetch and decode, whoever
// drew it. So every picture the page asks for is served from the page
// server as a stand-in of the width the page declares: without them, a
// render that skips pictures would be measured on pages that have none.

// standInWidths are the widths of the stand-in pictures, 16:9. A picture
// gets the narrowest one at least as wide as it declares itself, the widest
// when it is wider, and standInDefault when it declares no width.
var standInWidths = []int{64, 160, 320, 640, 1200}

const standInDefault = 640

// standIns are the stand-in JPEGs by width, made once.
type standIns map[int][]byte

func makeStandIns(rng *rand.Rand) (standIns, error) {
	s := standIns{}
	for _, w := range standInWidths {
		b, err := encodeJPEG(blocks(rng, w, max(w*9/16, 1), max(w/40, 4)))
		if err != nil {
			return nil, err
		}
		s[w] = b
	}
	return s, nil
}

// mount serves /picture/<width>/<n>.jpg: every picture of a page has its own
// address, as on the web, so the browser fetches each one.
func (s standIns) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /picture/{w}/{n}", func(w http.ResponseWriter, r *http.Request) {
		width, err := strconv.Atoi(r.PathValue("w"))
		b, ok := s[width]
		if err != nil || !ok {
			http.NotFound(w, r)
			return
		}
		blob("image/jpeg", b)(w, r)
	})
}

// standInWidth is the stand-in width for a picture that declares w CSS
// pixels (0: no width).
func standInWidth(w int) int {
	if w <= 0 {
		return standInDefault
	}
	for _, sw := range standInWidths {
		if sw >= w {
			return sw
		}
	}
	return standInWidths[len(standInWidths)-1]
}

// withPictures returns the page with the address of every picture it asks
// for (<img src> and srcset, <source srcset>, <video poster>, icons and
// picture preloads in <link>) replaced by a stand-in's on the page server,
// and how many it replaced. Everything else is kept byte for byte. A page
// the tokenizer cannot read to its end is returned as it is.
func withPictures(body []byte) ([]byte, int) {
	z := html.NewTokenizer(bytes.NewReader(body))
	var out bytes.Buffer
	out.Grow(len(body) + len(body)/8)
	n := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				return body, 0
			}
			out.Write(z.Raw()) // a tag cut off by the end of the page stays too
			return out.Bytes(), n
		}
		raw := z.Raw()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			out.Write(raw)
			continue
		}
		rawCopy := append([]byte(nil), raw...)
		tok := z.Token()
		if !rewritePictures(&tok, &n) {
			out.Write(rawCopy)
			continue
		}
		out.WriteString(tok.String())
	}
}

// rewritePictures replaces the picture addresses of one tag, counting them
// in n, and reports whether it changed any.
func rewritePictures(tok *html.Token, n *int) bool {
	declared, _ := strconv.Atoi(strings.TrimSuffix(attr(tok, "width"), "px"))
	var names []string
	switch tok.Data {
	case "img":
		names = []string{"src", "srcset"}
	case "source":
		// A <picture>'s sources give srcset; a video's or an audio's give
		// src, which is not a picture.
		names = []string{"srcset"}
	case "video":
		names = []string{"poster"}
	case "link":
		rel := strings.Fields(strings.ToLower(attr(tok, "rel")))
		switch {
		case slices.Contains(rel, "icon") || slices.Contains(rel, "apple-touch-icon"):
			declared = 64
			names = []string{"href"}
		case slices.Contains(rel, "preload") && strings.EqualFold(attr(tok, "as"), "image"):
			names = []string{"href", "imagesrcset"}
		}
	}
	changed := false
	for i, a := range tok.Attr {
		if !slices.Contains(names, a.Key) || strings.TrimSpace(a.Val) == "" {
			continue
		}
		var v string
		if strings.HasSuffix(a.Key, "srcset") {
			v = rewriteSrcset(a.Val, declared, n)
		} else if fetched(a.Val) {
			*n++
			v = pictureURL(standInWidth(declared), *n)
		}
		if v != "" && v != a.Val {
			tok.Attr[i].Val = v
			changed = true
		}
	}
	return changed
}

// rewriteSrcset maps each candidate of a srcset to a stand-in, its width
// taken from a "640w" descriptor when it has one.
func rewriteSrcset(set string, declared int, n *int) string {
	if strings.Contains(set, "data:") {
		return "" // a data: URL may hold commas; it costs no fetch anyway
	}
	var out []string
	for _, c := range strings.Split(set, ",") {
		f := strings.Fields(c)
		if len(f) == 0 || !fetched(f[0]) {
			continue
		}
		w := declared
		if len(f) > 1 && strings.HasSuffix(f[1], "w") {
			if d, err := strconv.Atoi(strings.TrimSuffix(f[1], "w")); err == nil {
				w = d
			}
		}
		*n++
		f[0] = pictureURL(standInWidth(w), *n)
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, ", ")
}

// fetched reports whether the browser would fetch an address: not a data:,
// blob: or javascript: one.
func fetched(u string) bool {
	u = strings.ToLower(strings.TrimSpace(u))
	for _, p := range []string{"data:", "blob:", "javascript:", "about:"} {
		if strings.HasPrefix(u, p) {
			return false
		}
	}
	return u != ""
}

func pictureURL(width, n int) string { return fmt.Sprintf("/picture/%d/%d.jpg", width, n) }

func attr(tok *html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
