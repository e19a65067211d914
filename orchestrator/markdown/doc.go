// Package markdown owns turning a parsed HTML page into clean Markdown for
// language models: the main content alone (Article) or a chosen element as
// it is (Convert), with absolute URLs, no scripts, hidden elements or
// tracking pixels, and stable white space; and the YAML frontmatter that may
// head it. Fetching, rendering, request options and the answer's shape are
// the callers'; of glimpse it imports only the pure rules of meta.
package markdown
