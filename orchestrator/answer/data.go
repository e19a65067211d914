package answer

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/glimpse/glimpse/orchestrator/render"
)

// Asset is the API's asset object (image, logo) and file object (pdf).
// Size and dimensions are absent when unknown (ping=false).
type Asset struct {
	URL        string `json:"url"`
	Type       string `json:"type"`
	Size       int64  `json:"size,omitempty"`
	SizePretty string `json:"size_pretty,omitempty"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	// Duration is a video's or audio's length in seconds, as the page
	// declares it; absent when it does not.
	Duration float64 `json:"duration,omitempty"`
	// Palette is the image's colours, with `palette` asked for.
	*Palette
}

// field is one key of the envelope's data object. A nil value is written as
// null: the page lacks it. A field the caller switched off is never added.
type field struct {
	name  string
	value any
}

// data keeps the order of docs/api.md#the-data-object (title, …, logo,
// pdf) so answers are stable and diffable.
type data []field

func (d data) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.name)
		b.Write(k)
		b.WriteByte(':')
		v, err := Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Empty is the body of an answer with nothing in it (meta=false and no
// other output).
func Empty() []byte {
	b, _ := successBody(nil, nil)
	return b
}

// successBody is the JSON envelope of a successful answer. As in
// Microlink's, what the target's server answered follows data: its
// status, its headers and the redirects on the way, when it was fetched.
func successBody(d data, resp *render.Response) ([]byte, error) {
	inner, err := d.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(inner) + 32)
	b.WriteString(`{"status":"success","data":`)
	b.Write(inner)
	if resp != nil {
		redirects := resp.Redirects
		if redirects == nil {
			redirects = []render.Redirect{}
		}
		headers := resp.Headers
		if headers == nil {
			headers = map[string]string{}
		}
		h, err := Marshal(headers)
		if err != nil {
			return nil, err
		}
		r, err := Marshal(redirects)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, `,"statusCode":%d,"headers":%s,"redirects":%s`, resp.StatusCode, h, r)
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// Marshal writes JSON without escaping <, > and &, which would turn URLs
// in the answer into \u0026 soup for the humans reading them.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
