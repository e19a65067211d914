package answer

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// json reads a match's text as JSON, Microlink's `attr: json`: on a JSON
// target, a rule without a selector reads the whole response; with a
// selector, the text of what it matched (a `<script
// type="application/ld+json">`, a `<pre>`). The value is the JSON as
// written, its keys in their order and its numbers exact, within the
// rules' byte bound; text that is not JSON gives no value.
func (run *dataRun) json(s *goquery.Selection) any {
	text := strings.TrimSpace(s.Text())
	if text == "" || !run.spend(0, len(text)+valueOverhead) {
		return nil
	}
	raw := []byte(text)
	if !json.Valid(raw) {
		return nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil
	}
	return json.RawMessage(compact.Bytes())
}
