package apierr

import (
	"bytes"
	"html/template"
	"strings"
)

// CodeDoc is what the errors page says about one code.
type CodeDoc struct {
	Code   string
	Status int
	When   string // what makes glimpse answer it
	Retry  string // whether trying again can help, and how
}

// Anchor is the code's anchor on the errors page, which `more` links to.
func (d CodeDoc) Anchor() string { return strings.ToLower(d.Code) }

// Kind is the envelope's status for the code: "fail" or "error".
func (d CodeDoc) Kind() string {
	if d.Status >= 500 {
		return "error"
	}
	return "fail"
}

// codeDocs documents every code of codeStatus, in the order of the codes
// table of docs/api.md, glimpse's own codes after it.
var codeDocs = []CodeDoc{
	{CodeInvalidURL, 0, "`url` is missing, is not a valid WHATWG URL, is not http or https, has no host, carries user-info, or its host does not resolve.", "No: change the request."},
	{CodeForbiddenURL, 0, "The target, a redirect hop or an asset resolves to an address outside public unicast (loopback, private, link-local, CGNAT, multicast, unique-local, and their IPv4-mapped, NAT64 and 6to4 forms).", "No: use a publicly reachable URL."},
	{CodeInvalidQuery, 0, "A known parameter has a value glimpse cannot use; the message names the parameter and the values it accepts.", "No: change the parameter."},
	{CodePageRange, 0, "`pdf.pageRanges` asks for pages outside the document.", "No: ask for pages the document has."},
	{CodeMaxRedirects, 0, "The target redirected more than 10 times.", "No: give the final URL."},
	{CodeAuth, 0, "The API key, sent in the `x-api-key` header or in the `api-key`, `apiKey` or `api_key` parameter, is not known, is empty, or is given twice with different values.", "No: send one known key, or none for the anonymous plan."},
	{CodeRate, 0, "The plan's quota for the window is used up; `retry-after` says when the window resets.", "Yes, after `retry-after`."},
	{CodeBusy, 0, "Every browser is busy and the wait queue is full, or no browser is healthy; `retry-after` is set.", "Yes, after `retry-after`."},
	{CodeTimeout, 0, "The target, or the whole request, took longer than `timeout`.", "Yes, perhaps with a larger `timeout`."},
	{CodeFatal, 0, "Something unexpected failed on glimpse's side; the message carries the request id and the log the cause.", "Yes, once; if it keeps failing, report it with the request id."},
	{CodeFetch, 0, "The target failed in a way that trying again at once does not mend: it refused or dropped the connection, its TLS certificate is not valid, its answer is malformed, too large or undecodable, or the page crashed its browser tab.", "No: the target itself has to change."},
	{CodeStorage, 0, "File storage is unreachable: only answers that store or read a PDF or screenshot fail; `retry-after` is set.", "Yes, after `retry-after`."},
	{CodeTooLarge, 0, "The request line and headers exceed 256 KiB.", "No: send a shorter request."},
	{CodeNotFound, 0, "A path other than the API's own.", "No: the API answers at `/?url=…`."},
	{CodeMethod, 0, "A method other than GET or HEAD on `/`.", "No: use GET or HEAD."},
	{CodeProxyNeeded, 0, "A bot wall (a challenge, a CAPTCHA or a block by a bot-management vendor) answered instead of the page; the message names the vendor. The status is 403, or 429 when the wall answered 429.", "Yes, with a proxy the site lets through, or later."},
	{CodeClient, 0, "The caller went away before its answer. It is never sent; logs and metrics count it apart from failures.", "Not applicable."},
}

// Docs is the documentation of every code, each with its status.
func Docs() []CodeDoc {
	out := make([]CodeDoc, len(codeDocs))
	for i, d := range codeDocs {
		d.Status = Status(d.Code)
		out[i] = d
	}
	return out
}

var docsPage = template.Must(template.New("errors").Funcs(template.FuncMap{"code": inlineCode}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>glimpse: error codes</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em}code{background:#f3f3f3;padding:0 .2em}h2{margin-top:1.6em}</style>
</head><body>
<h1 id="errors">Error codes</h1>
<p>Every error answer is a JSON envelope: <code>status</code> (<code>fail</code> for a problem with the request, <code>error</code> for one on the service's side), <code>code</code>, a <code>message</code> that says what to change, <code>more</code> (a link to this page) and <code>data</code>. The request id is in the <code>x-request-id</code> header.</p>
{{range .}}<h2 id="{{.Anchor}}">{{.Code}}</h2>
<p>HTTP {{.Status}}, <code>{{.Kind}}</code>. {{code .When}}</p>
<p>Worth a retry? {{code .Retry}}</p>
{{end}}</body></html>
`))

// inlineCode escapes s and turns its `backquoted` spans into <code>.
func inlineCode(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		esc := template.HTMLEscapeString(p)
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + esc + "</code>")
		} else {
			if i%2 == 1 {
				b.WriteString("`")
			}
			b.WriteString(esc)
		}
	}
	return template.HTML(b.String())
}

// DocsPage is the HTML page served at DocsPath: one section per code, each
// under the anchor `more` links to.
func DocsPage() []byte {
	var b bytes.Buffer
	if err := docsPage.Execute(&b, Docs()); err != nil {
		panic(err) // the template and its data are the program's own
	}
	return b.Bytes()
}
