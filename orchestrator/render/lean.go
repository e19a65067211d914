package render

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// A render whose answer has no pixels (metadata, data rules, Markdown)
// reads the document and what scripts write into it. It is lean: it loads
// nothing that only paints, and it does not wait for the load event once
// the document has stopped changing. PDFs and screenshots are rendered in
// full.

// unneededTypes are the resources a lean render fails at once, before
// they reach the network: pictures, media and fonts only paint, whether a
// tag, a style or a preload asks for them. Stylesheets load: a script may
// read the layout they make.
var unneededTypes = []network.ResourceType{network.ResourceTypeImage, network.ResourceTypeMedia, network.ResourceTypeFont}

// lean reports whether req's render needs no pixels.
func (r *Renderer) lean(req *query.Request) bool {
	return !r.full && req.PDF == nil && req.Screenshot == nil
}

// blockedTypes are the resource types req's render refuses to load.
func (r *Renderer) blockedTypes(req *query.Request) []network.ResourceType {
	if r.lean(req) {
		return unneededTypes
	}
	return nil
}

const (
	// earlyQuiet is how long the document must stay the same, with no
	// script, fetch or XHR of the page in flight, for a lean render to read
	// it before its load event.
	earlyQuiet = 200 * time.Millisecond
	// earlyCap is how long after DOMContentLoaded a lean render waits at
	// most for that quiet, when the load event does not come first.
	earlyCap = 3 * time.Second
)

// documentShapeJS is a hash of what metadata and its rules read from a
// document: the head, JSON-LD anywhere, the language, the first heading and
// the byline-bearing article start. Two equal hashes earlyQuiet apart mean
// scripts have stopped writing what the answer is made of.
const documentShapeJS = `(() => {
  const parts = [document.title, document.documentElement ? document.documentElement.lang : "",
    document.head ? document.head.outerHTML : ""];
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) parts.push(s.textContent);
  const h1 = document.querySelector("h1");
  if (h1) parts.push(h1.textContent);
  const main = document.querySelector("article, main, [role=main]");
  if (main) parts.push(String(main.childElementCount), main.textContent.slice(0, 4096));
  const s = parts.join("\u0000");
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0).toString(16) + ":" + s.length;
})()`

// documentShape reads the hash, or "" when the page could not answer.
func documentShape(ctx context.Context, sess *cdp.Session) string {
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var v string
	if evaluate(sctx, sess, documentShapeJS, &v) != nil {
		return ""
	}
	return v
}
