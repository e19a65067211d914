package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Page is what every tool reads: the target and how long to wait for it.
type Page struct {
	URL             string `json:"url" jsonschema:"the page's address: an absolute http or https URL on the public internet"`
	WaitForSelector string `json:"waitForSelector,omitempty" jsonschema:"wait until an element matches this CSS selector before reading (renders the page in a browser); for content that scripts add late"`
	Timeout         any    `json:"timeout,omitempty" jsonschema:"the call's budget: milliseconds as a number, or a string with a unit (10s); default 28s"`
	Force           bool   `json:"force,omitempty" jsonschema:"read the page again instead of answering from the 24-hour cache"`
}

func (p Page) query() url.Values {
	q := url.Values{"url": {p.URL}}
	if p.WaitForSelector != "" {
		q.Set("waitForSelector", p.WaitForSelector)
	}
	switch t := p.Timeout.(type) {
	case string:
		setNonEmpty(q, "timeout", t)
	case float64:
		q.Set("timeout", strconv.FormatFloat(t, 'f', -1, 64))
	case nil:
	default:
		q.Set("timeout", fmt.Sprint(t)) // the API names what it accepts
	}
	if p.Force {
		q.Set("force", "true")
	}
	return q
}

// MetadataInput is the metadata tool's.
type MetadataInput struct {
	Page
	Fields []string `json:"fields,omitempty" jsonschema:"only these fields, from title, description, lang, author, publisher, image, date, url, logo; default all"`
}

// MarkdownInput is the markdown tool's.
type MarkdownInput struct {
	Page
	Selector    string `json:"selector,omitempty" jsonschema:"CSS selector of the part to convert, as it is; overrides scope"`
	Scope       string `json:"scope,omitempty" jsonschema:"main (default): the article or main content only, without navigation, menus, banners, comments or footers; page: the whole page"`
	Frontmatter bool   `json:"frontmatter,omitempty" jsonschema:"begin with a YAML block of the page's metadata, word count and reading time"`
}

// SelectorInput is the text and html tools'.
type SelectorInput struct {
	Page
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector: only the first matching element; default the whole page"`
}

// ScreenshotInput is the screenshot tool's.
type ScreenshotInput struct {
	Page
	FullPage    bool   `json:"fullPage,omitempty" jsonschema:"the whole document instead of the 1280x800 viewport"`
	Element     string `json:"element,omitempty" jsonschema:"CSS selector: capture only the first matching element"`
	Type        string `json:"type,omitempty" jsonschema:"png (default), jpeg or webp"`
	Device      string `json:"device,omitempty" jsonschema:"emulate a device by name, such as iPhone 15, iPad or Macbook Pro 13"`
	ColorScheme string `json:"colorScheme,omitempty" jsonschema:"light, dark or no-preference"`
}

// PDFInput is the pdf tool's.
type PDFInput struct {
	Page
	Format          string  `json:"format,omitempty" jsonschema:"paper size: A4 (default), Letter, Legal, Tabloid, Ledger, A0 to A6"`
	Landscape       bool    `json:"landscape,omitempty" jsonschema:"landscape orientation"`
	Margin          string  `json:"margin,omitempty" jsonschema:"one length for every side, in px, in, cm or mm; default 0.35cm"`
	Scale           float64 `json:"scale,omitempty" jsonschema:"0.1 to 2; default 0.6"`
	PageRanges      string  `json:"pageRanges,omitempty" jsonschema:"pages to keep, such as 1-5, 8; default all"`
	PrintBackground *bool   `json:"printBackground,omitempty" jsonschema:"print background colours and images; default true"`
	MediaType       string  `json:"mediaType,omitempty" jsonschema:"CSS media emulated: print (default) or screen"`
}

// ExtractInput is the extract tool's.
type ExtractInput struct {
	Page
	Rules map[string]any `json:"rules" jsonschema:"one rule per name, in Microlink's data syntax: {selector or selectorAll, attr, type}, an array of such rules as fallbacks, or attr holding nested rules; see the tool description"`
}

func readOnly(title string) *mcp.ToolAnnotations {
	open := true
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &open}
}

const costNote = " Costs one request of the caller's quota; identical calls within 24 hours are answered from the cache."

func (s *Server) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "metadata", Annotations: readOnly("Page metadata"), Description: "A web page's metadata, as a link preview shows it: title, description, lang, author, publisher, date (ISO 8601), canonical url, and image and logo objects ({url, type, size, width, height}); a field the page lacks is null. Also the target's HTTP statusCode. Usually a plain fetch (tens of milliseconds); pages built by scripts are rendered in a browser (about a second)." + costNote}, s.metadata)
	mcp.AddTool(srv, &mcp.Tool{Name: "markdown", Annotations: readOnly("Page as Markdown"), Description: "A web page as clean Markdown, for reading: by default only its main content (the article), with headings, lists, tables, code blocks, and absolute links and image URLs; no navigation, ads or comments. Returns plain text. The cheapest way to read a page: usually a plain fetch." + costNote}, s.markdown)
	mcp.AddTool(srv, &mcp.Tool{Name: "text", Annotations: readOnly("Page text"), Description: "The visible text of a web page, or of the first element a CSS selector matches, with white space collapsed. Returns plain text; prefer markdown to keep the page's structure." + costNote}, s.text)
	mcp.AddTool(srv, &mcp.Tool{Name: "html", Annotations: readOnly("Page HTML"), Description: "The HTML of a web page after its scripts ran, or the outer HTML of the first element a CSS selector matches. Returns plain text; large pages give long answers, so prefer a selector." + costNote}, s.html)
	mcp.AddTool(srv, &mcp.Tool{Name: "screenshot", Annotations: readOnly("Screenshot"), Description: fmt.Sprintf("A screenshot of a web page, rendered in Chromium at 1280x800 (or a device's viewport), stored at a public URL. Returns {url, type, size, size_pretty, width, height}; a screenshot of at most %d bytes also comes back as an image. Always renders in a browser: about one to a few seconds.", s.maxImage) + costNote}, s.screenshot)
	mcp.AddTool(srv, &mcp.Tool{Name: "pdf", Annotations: readOnly("PDF"), Description: "A web page printed to PDF by Chromium and stored at a public URL. Returns {url, type, size, size_pretty} and a link to the file; the PDF itself is not sent. Always renders in a browser: about one to a few seconds." + costNote}, s.pdf)
	mcp.AddTool(srv, &mcp.Tool{Name: "links", Annotations: readOnly("Links"), Description: "Every link of a web page, or of the part a CSS selector matches: absolute http(s) URLs in page order, each once, with its text. Returns {count, links: [{url, text}]}. Useful to explore a site before reading its pages." + costNote}, s.links)
	mcp.AddTool(srv, &mcp.Tool{Name: "images", Annotations: readOnly("Images"), Description: "Every image (<img>) of a web page, or of the part a CSS selector matches: absolute http(s) URLs in page order, each once, with its alt text (lazy-loaded images' data-src too). Returns {count, images: [{url, alt}]}." + costNote}, s.images)
	mcp.AddTool(srv, &mcp.Tool{Name: "extract", Annotations: readOnly("Extract data"), Description: `Values picked out of a web page by rules, one per name, in Microlink's data syntax. A rule is {"selector": CSS (first match) or "selectorAll": CSS (a list), "attr": "text" | "html" | "markdown" | "href" | any attribute, "type": "string" | "number" | "boolean" | "date" | "url" | "email" | "image" | "title" | ...}. Example: {"price": {"selector": ".price", "attr": "text", "type": "number"}, "names": {"selectorAll": ".product h2", "attr": "text"}}. An array of rules is tried in order until one finds a value; "attr": {"field": rule, ...} reads an object within each match. Returns an object with one value per rule name, null when nothing matched.` + costNote}, s.extract)
}

func (s *Server) metadata(ctx context.Context, req *mcp.CallToolRequest, in MetadataInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	for _, f := range in.Fields {
		q.Set("meta."+strings.TrimSpace(f), "true")
	}
	ok, fail := s.json(ctx, req, q)
	if fail != nil {
		return fail, nil, nil
	}
	var data map[string]any
	if err := json.Unmarshal(ok.Data, &data); err != nil || data == nil {
		data = map[string]any{}
	}
	if ok.StatusCode != nil {
		data["statusCode"] = *ok.StatusCode
	}
	return nil, data, nil
}

func (s *Server) markdown(ctx context.Context, req *mcp.CallToolRequest, in MarkdownInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("data.markdown.attr", "markdown")
	switch {
	case in.Selector != "":
		q.Set("data.markdown.selector", in.Selector)
	case in.Scope == "page":
		q.Set("data.markdown.selector", "html")
	case in.Scope != "" && in.Scope != "main":
		return badInput("scope", in.Scope, "`scope` is `main` (the main content) or `page` (the whole page)."), nil, nil
	}
	if !in.Frontmatter {
		q.Set("meta", "false")
	}
	empty := "The page has no main content to convert; try `scope: page`, or a `selector`."
	if in.Selector != "" || in.Scope == "page" {
		empty = "The page has nothing to convert there."
	}
	return s.ruleText(ctx, req, q, "markdown", in.Selector, empty), nil, nil
}

func (s *Server) text(ctx context.Context, req *mcp.CallToolRequest, in SelectorInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("data.text.attr", "text")
	q.Set("data.text.selector", cmp(in.Selector, "body"))
	q.Set("meta", "false")
	return s.ruleText(ctx, req, q, "text", in.Selector, "The page has no text."), nil, nil
}

func (s *Server) html(ctx context.Context, req *mcp.CallToolRequest, in SelectorInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("data.html.attr", "outerHTML")
	q.Set("data.html.selector", cmp(in.Selector, "html"))
	q.Set("meta", "false")
	return s.ruleText(ctx, req, q, "html", in.Selector, "The page has no HTML."), nil, nil
}

func (s *Server) screenshot(ctx context.Context, req *mcp.CallToolRequest, in ScreenshotInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("meta", "false")
	q.Set("screenshot", "true")
	setIf(q, "screenshot.fullPage", in.FullPage)
	setNonEmpty(q, "screenshot.element", in.Element)
	setNonEmpty(q, "screenshot.type", in.Type)
	setNonEmpty(q, "device", in.Device)
	setNonEmpty(q, "colorScheme", in.ColorScheme)
	file, raw, fail := s.file(ctx, req, q, "screenshot")
	if fail != nil {
		return fail, nil, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
	if file.Size > 0 && file.Size <= s.maxImage {
		if img, mime := s.stored(ctx, req, file.URL); img != nil {
			res.Content = append(res.Content, &mcp.ImageContent{Data: img, MIMEType: mime})
		}
	}
	return res, raw, nil
}

func (s *Server) pdf(ctx context.Context, req *mcp.CallToolRequest, in PDFInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("meta", "false")
	q.Set("pdf", "true")
	setNonEmpty(q, "pdf.format", in.Format)
	setIf(q, "pdf.landscape", in.Landscape)
	setNonEmpty(q, "pdf.margin", in.Margin)
	if in.Scale != 0 {
		q.Set("pdf.scale", strconv.FormatFloat(in.Scale, 'f', -1, 64))
	}
	setNonEmpty(q, "pdf.pageRanges", in.PageRanges)
	if in.PrintBackground != nil {
		q.Set("pdf.printBackground", strconv.FormatBool(*in.PrintBackground))
	}
	setNonEmpty(q, "mediaType", in.MediaType)
	file, raw, fail := s.file(ctx, req, q, "pdf")
	if fail != nil {
		return fail, nil, nil
	}
	size := file.Size
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: string(raw)},
		&mcp.ResourceLink{URI: file.URL, Name: "page.pdf", Title: "PDF of " + in.URL, MIMEType: "application/pdf", Size: &size},
	}}, raw, nil
}

func (s *Server) extract(ctx context.Context, req *mcp.CallToolRequest, in ExtractInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("meta", "false")
	if len(in.Rules) == 0 {
		return badInput("rules", "{}", "`rules` needs at least one rule, such as {\"title\": {\"selector\": \"h1\", \"attr\": \"text\"}}."), nil, nil
	}
	if err := flattenRules(q, in.Rules); err != nil {
		return badInput("rules", "", err.Error()), nil, nil
	}
	ok, fail := s.json(ctx, req, q)
	if fail != nil {
		return fail, nil, nil
	}
	return nil, ok.Data, nil
}

// json answers q with the API's JSON envelope.
func (s *Server) json(ctx context.Context, req *mcp.CallToolRequest, q url.Values) (*success, *mcp.CallToolResult) {
	rep, err := s.get(ctx, req, "/", q)
	if err != nil {
		return nil, toolError(envelope{Status: "error", Code: "EFATAL", Message: err.Error()})
	}
	return decode(rep)
}

// ruleText answers q with the value of the data rule `name` as plain
// text. A value that is not there is the caller's to change: a selector
// that matches nothing is named, else empty says what the page lacks.
func (s *Server) ruleText(ctx context.Context, req *mcp.CallToolRequest, q url.Values, name, selector, empty string) *mcp.CallToolResult {
	ok, fail := s.json(ctx, req, q)
	if fail != nil {
		return fail
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(ok.Data, &data)
	var text *string
	if err := json.Unmarshal(data[name], &text); err != nil || text == nil || strings.TrimSpace(*text) == "" {
		if selector != "" {
			return badInput("selector", selector, fmt.Sprintf("The selector `%s` matches nothing on the page, or only something empty; check it against the page (the html tool shows it), or drop it.", selector))
		}
		return badInput("url", q.Get("url"), empty)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: *text}}}
}

// storedFile is data.pdf or data.screenshot.
type storedFile struct {
	URL  string `json:"url"`
	Size int64  `json:"size"`
}

// file answers q, which asks for a stored file, with that file's object.
func (s *Server) file(ctx context.Context, req *mcp.CallToolRequest, q url.Values, field string) (storedFile, json.RawMessage, *mcp.CallToolResult) {
	var f storedFile
	ok, fail := s.json(ctx, req, q)
	if fail != nil {
		return f, nil, fail
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(ok.Data, &data)
	raw := data[field]
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || f.URL == "" {
		return f, nil, toolError(envelope{Status: "error", Code: "EFATAL",
			Message: fmt.Sprintf("glimpse's answer has no %s; try again, and report it if it keeps failing.", field)})
	}
	return f, raw, nil
}

// stored reads a stored file back through the API's /files/ route, or
// nil when it cannot. The public URL may name a CDN or a bucket; the path
// after its last /files/ is the file's name in any of them.
func (s *Server) stored(ctx context.Context, req *mcp.CallToolRequest, public string) ([]byte, string) {
	u, err := url.Parse(public)
	if err != nil {
		return nil, ""
	}
	i := strings.LastIndex(u.Path, "/files/")
	if i < 0 {
		return nil, ""
	}
	rep, err := s.get(ctx, req, u.Path[i:], nil)
	if err != nil || rep.status != http.StatusOK || rep.over || int64(rep.body.Len()) > s.maxImage {
		return nil, ""
	}
	mime := rep.header.Get("content-type")
	if !strings.HasPrefix(mime, "image/") {
		return nil, ""
	}
	return rep.body.Bytes(), mime
}

// badInput is the EINVALQUERY the API would give for a tool argument it
// never sees.
func badInput(param, value, message string) *mcp.CallToolResult {
	data, _ := json.Marshal(map[string]string{"param": param, "value": value})
	return toolError(envelope{Status: "fail", Code: "EINVALQUERY", Message: message, Data: data})
}

func cmp(v, fallback string) string {
	if strings.TrimSpace(v) == "" {
		return fallback
	}
	return v
}

func setNonEmpty(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func setIf(q url.Values, name string, on bool) {
	if on {
		q.Set(name, "true")
	}
}
