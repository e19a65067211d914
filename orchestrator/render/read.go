package render

import (
	"context"
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

// maxDOMChars bounds the document transferred from the browser. A larger
// page keeps its whole <head> and the start of its <body>, which is where
// every metadata source lives.
const maxDOMChars = 8 << 20

// hasEssentials reports whether the document already names itself, so the
// render need not wait for scripts to fill in the head.
func hasEssentials(ctx context.Context, sess *cdp.Session) bool {
	var ok bool
	_ = evaluate(ctx, sess, `!!(document.title || document.querySelector('meta[property="og:title"],meta[name="twitter:title"]'))`, &ok)
	return ok
}

// waitForHead gives a client-rendered page a short, capped wait: until
// scripts have given the document a title (then 100 ms more for the rest of
// the head to land), or 1.5 s at most.
func waitForHead(ctx context.Context, sess *cdp.Session) {
	const js = `new Promise(res => {
  let settle;
  const named = () => document.title || document.querySelector('meta[property="og:title"],meta[name="twitter:title"]');
  const o = new MutationObserver(() => { if (!settle && named()) settle = setTimeout(done, 100); });
  function done() { o.disconnect(); res(true); }
  if (named()) { settle = setTimeout(done, 100); }
  o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  setTimeout(done, 1500);
})`
	var v bool
	_ = evaluate(ctx, sess, js, &v)
}

// maxShadowRoots bounds the shadow roots readDOM serializes: past it, a
// page is hostile, and the rest are left as their hosts' light children.
const maxShadowRoots = 10000

// readDOM transfers the live document, bounded by maxDOMChars. The open
// shadow roots of the page's components come with it, each as the
// declarative template its host would hold (getHTML's shadowRoots), so
// that a component's text is in the document read; outerHTML leaves them
// out.
func readDOM(ctx context.Context, sess *cdp.Session) (*goquery.Document, string, error) {
	// The whole document is bounded, its head included: a page may inflate
	// either. A head larger than half the bound is hostile; its start is
	// where the metadata is. The bound holds because the script runs in
	// glimpse's own world, where the page cannot replace slice or the
	// outerHTML getter.
	js := fmt.Sprintf(`(() => {
  const max = %d, root = document.documentElement;
  if (!root) return {html: "", href: location.href};
  const roots = [];
  const find = (scope) => {
    for (const el of scope.querySelectorAll("*")) {
      if (roots.length >= %d) return;
      if (el.shadowRoot) { roots.push(el.shadowRoot); find(el.shadowRoot); }
    }
  };
  find(document);
  let html;
  if (roots.length > 0 && typeof root.getHTML === "function") {
    const esc = (v) => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
    const attrs = Array.from(root.attributes).map((a) => " " + a.name + "=\"" + esc(a.value) + "\"").join("");
    html = "<html" + attrs + ">" + root.getHTML({shadowRoots: roots}) + "</html>";
  } else {
    html = root.outerHTML;
  }
  if (html.length > max) {
    let head = document.head ? document.head.outerHTML : "";
    if (head.length > max / 2) head = head.slice(0, max / 2);
    const body = document.body ? document.body.innerHTML.slice(0, Math.max(0, max - head.length)) : "";
    html = "<html lang=\"" + (root.getAttribute("lang") || "").replace(/"/g, "").slice(0, 64) + "\">" + head + "<body>" + body + "</body></html>";
  }
  return {html, href: location.href.slice(0, 65536)};
})()`, maxDOMChars, maxShadowRoots)
	var v struct {
		HTML string `json:"html"`
		Href string `json:"href"`
	}
	if err := evaluate(ctx, sess, js, &v); err != nil {
		return nil, "", err
	}
	doc, err := meta.ParseDocument(strings.NewReader(v.HTML))
	if err != nil {
		return nil, "", err
	}
	return doc, v.Href, nil
}
