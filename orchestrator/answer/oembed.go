package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// Bounds of fetching an oEmbed. A provider's answer is a small JSON or
// XML document (a few kilobytes of HTML for the richest embeds); one that
// is larger, or slower, is no embed glimpse passes on.
const (
	oembedBudget   = 4 * time.Second
	maxOEmbedBytes = 256 << 10
	// maxOEmbedScripts bounds the scripts listed beside the HTML.
	maxOEmbedScripts = 16
)

// Iframe is Microlink's `iframe` field: the provider's embed HTML, as the
// provider gives it (glimpse never renders it), and the scripts that HTML
// loads, for a client that injects it with innerHTML, where scripts do
// not run.
type Iframe struct {
	HTML    string         `json:"html"`
	Scripts []IframeScript `json:"scripts"`
}

// IframeScript is one <script src> of the embed's HTML.
type IframeScript struct {
	Src     string `json:"src"`
	Async   bool   `json:"async"`
	Charset string `json:"charset,omitempty"`
}

var errOEmbedTooLarge = errors.New("the oEmbed provider's answer is larger than glimpse reads")

// fetchIframe reads the page's oEmbed: the first endpoint the page
// declares that answers with HTML, fetched through src (the egress
// guard checks every hop's address) with the caller's maxwidth and
// maxheight. nil when the page declares none that answers.
func fetchIframe(ctx context.Context, src render.Source, links []meta.OEmbedLink, o *query.IframeOptions) (*Iframe, error) {
	var errs []error
	for _, l := range links {
		endpoint, err := oembedURL(l.URL, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := fetchOEmbed(ctx, src, endpoint, l.Format)
		if err == nil {
			return f, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// oembedURL is the endpoint with the caller's sizes as the oEmbed
// specification names them; sizes the page's link already carries are
// replaced.
func oembedURL(raw string, o *query.IframeOptions) (string, error) {
	if len(raw) > MaxAssetURLBytes {
		return "", fmt.Errorf("an oEmbed endpoint of %d bytes is longer than the %d glimpse fetches", len(raw), MaxAssetURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if o == nil || (o.MaxWidth == 0 && o.MaxHeight == 0) {
		return u.String(), nil
	}
	q := u.Query()
	if o.MaxWidth > 0 {
		q.Set("maxwidth", strconv.Itoa(o.MaxWidth))
	}
	if o.MaxHeight > 0 {
		q.Set("maxheight", strconv.Itoa(o.MaxHeight))
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// oembedAnswer is the part of a provider's answer glimpse reads, in
// either format.
type oembedAnswer struct {
	Type string `json:"type" xml:"type"`
	HTML string `json:"html" xml:"html"`
}

func fetchOEmbed(ctx context.Context, src render.Source, endpoint, format string) (*Iframe, error) {
	ctx, cancel := context.WithTimeout(ctx, oembedBudget)
	defer cancel()
	body, header, err := src.Open(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	if n := render.BodySize(header); n > maxOEmbedBytes {
		return nil, fmt.Errorf("%w: %s announces %d bytes, past %d", errOEmbedTooLarge, endpoint, n, maxOEmbedBytes)
	}
	data, err := io.ReadAll(io.LimitReader(body, maxOEmbedBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxOEmbedBytes {
		return nil, fmt.Errorf("%w: %s answered more than %d bytes", errOEmbedTooLarge, endpoint, maxOEmbedBytes)
	}
	var a oembedAnswer
	ct := strings.ToLower(header("content-type"))
	if format == "xml" && !strings.Contains(ct, "json") || strings.Contains(ct, "xml") {
		err = decodeOEmbedXML(data, &a)
	} else {
		err = json.Unmarshal(data, &a)
	}
	if err != nil {
		return nil, fmt.Errorf("the oEmbed answer of %s is not valid %s: %w", endpoint, format, err)
	}
	if strings.TrimSpace(a.HTML) == "" {
		return nil, fmt.Errorf("the oEmbed answer of %s (type %q) has no html", endpoint, a.Type)
	}
	return &Iframe{HTML: a.HTML, Scripts: embedScripts(a.HTML)}, nil
}

// decodeOEmbedXML reads the XML form. Go's decoder expands only XML's own
// five entities and never fetches a DTD, so an entity bomb or an
// external entity is an error, not a cost.
func decodeOEmbedXML(data []byte, a *oembedAnswer) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	var doc struct {
		XMLName xml.Name `xml:"oembed"`
		oembedAnswer
	}
	if err := d.Decode(&doc); err != nil {
		return err
	}
	*a = doc.oembedAnswer
	return nil
}

// embedScripts lists the <script src> elements of the embed's HTML, in
// order, each once.
func embedScripts(fragment string) []IframeScript {
	scripts := []IframeScript{}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return scripts
	}
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if len(scripts) >= maxOEmbedScripts {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Script {
			s := IframeScript{}
			for _, a := range n.Attr {
				switch a.Key {
				case "src":
					s.Src = strings.TrimSpace(a.Val)
				case "async":
					s.Async = true
				case "charset":
					s.Charset = a.Val
				}
			}
			if s.Src != "" && !seen[s.Src] {
				seen[s.Src] = true
				scripts = append(scripts, s)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return scripts
}
