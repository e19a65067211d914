package render

import (
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// maxScriptFailure bounds, in UTF-16 units, the description of an
// exception a caller's script threw that leaves the page. A longer one is
// reported without its text.
const maxScriptFailure = 300

// callerScript is the expression that runs one of the caller's `scripts`
// in the page's own world, as the caller means it to, and gives back
// nothing of what it returned. The value is the page's to shape (a getter
// on document.title, a redefined String.prototype, a promise that settles
// into a string of a hundred megabytes), so it never leaves the page:
// the expression awaits it and ends with undefined, or, when the script
// threw, with a description of at most maxScriptFailure units. The bound
// is kept with the language's own operators (try, typeof, a string's
// length, a template), which no page can redefine; nothing here calls a
// method a page could have replaced. The source reaches the page as a
// string literal, so nothing in it can close the wrapper.
func callerScript(src string) string {
	lit, _ := json.Marshal(src) // a string always encodes
	return fmt.Sprintf(`(async (src) => {
  try {
    await (0, eval)(src);
    return undefined;
  } catch (e) {
    let m = "";
    try { m = %s; } catch (_) { return "!the script threw a value that cannot be described"; }
    if (typeof m !== "string" || m.length > %d) return "!the script threw an exception too long to show";
    return "!" + m;
  }
})(%s)`, "`${e}`", maxScriptFailure, lit)
}

// scriptFailure reads what callerScript gave: the description of what the
// script threw, or "" when it ran to its end.
func scriptFailure(res *runtime.RemoteObject) (string, bool) {
	if res == nil || res.Type != runtime.RemoteObjectTypeString {
		return "", false
	}
	var s string
	if jsonv2.Unmarshal(res.Value, &s) != nil || len(s) == 0 || s[0] != '!' {
		return "", false
	}
	return s[1:], true
}
