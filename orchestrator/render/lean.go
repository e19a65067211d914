package render

import (
	"context"
	"fmt"
	"strings"
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
	// earlyQuietContent is that time for a document that holds its
	// content: a title, a heading or JSON-LD, and paragraphs.
	earlyQuietContent = 50 * time.Millisecond
	// earlyCap is how long after DOMContentLoaded a lean render waits at
	// most for that quiet, when the load event does not come first.
	earlyCap = 3 * time.Second
)

// documentShapeJS is a hash of what metadata and its rules read from a
// document: the title, the language, the head's meta and link elements,
// JSON-LD anywhere, the first heading and the byline-bearing article
// start. Two equal hashes earlyQuiet apart (earlyQuietContent for a
// document that holds its content) mean scripts have stopped writing what
// the answer is made of. Scripts, styles and resource hints
// that scripts add to the head are not part of it: tag managers add them
// for minutes, and nothing read from a page is in them.
//
// A hash ending in ":c" is of a page with its content: a title, a heading
// or JSON-LD, and at least contentText characters of paragraphs.
//
// A look also sets a timer, due in half the time to the next look, and a
// hash starting with "~" is of a look before which the last one's timer
// had not run: the page's event loop did not turn meanwhile (a long task,
// or a machine too busy to run the page), so its own timers, due
// earlier, may not have run either, and an unchanged hash says nothing of
// whether its scripts are done.
var documentShapeJS = fmt.Sprintf(`((turnContent, turn) => {
  const parts = [document.title, document.documentElement ? document.documentElement.lang : ""];
  if (document.head) {
    for (const e of document.head.children) {
      const tag = e.localName;
      if (tag === "meta" || tag === "title" || tag === "base" ||
          (tag === "link" && !/\b(?:stylesheet|preload|modulepreload|prefetch|preconnect|dns-prefetch)\b/i.test(e.rel))) parts.push(e.outerHTML);
    }
  }
  const ld = document.querySelectorAll('script[type="application/ld+json"]');
  for (const s of ld) parts.push(s.textContent);
  const h1 = document.querySelector("h1");
  if (h1) parts.push(h1.textContent);
  const main = document.querySelector("article, main, [role=main]");
  if (main) parts.push(String(main.childElementCount), main.textContent.slice(0, 4096));
  let text = 0;
  for (const p of document.querySelectorAll("p")) {
    text += p.textContent.trim().length;
    if (text >= `+contentText+`) break;
  }
  const s = parts.join("\u0000");
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  const content = document.title.trim() !== "" && (h1 || ld.length > 0) && text >= `+contentText+`;
  const last = globalThis.glimpseLook, look = {ran: false};
  globalThis.glimpseLook = look;
  setTimeout(() => { look.ran = true; }, content ? turnContent : turn);
  return (last && !last.ran ? "~" : "") + (h >>> 0).toString(16) + ":" + s.length + (content ? ":c" : "");
})(%d, %d)`, earlyQuietContent.Milliseconds()/2, earlyQuiet.Milliseconds()/2)

// contentText is how many characters of paragraphs, besides a title and a
// heading or JSON-LD, make a document one that holds its content: a page
// drawn by a script has none of it before that script has run.
const contentText = "400"

// hasContent reports whether a shape is of a document with its content.
func hasContent(shape string) bool { return strings.HasSuffix(shape, ":c") }

// documentShape reads the hash, or "" when the page could not answer;
// turned is false when the page's event loop had not turned since the
// last look (see documentShapeJS).
func documentShape(ctx context.Context, sess *cdp.Session) (shape string, turned bool) {
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var v string
	if evaluate(sctx, sess, documentShapeJS, &v) != nil {
		return "", false
	}
	shape, busy := strings.CutPrefix(v, "~")
	return shape, !busy
}
