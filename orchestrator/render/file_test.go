package render

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

func TestReadHeadKeepsADocumentWholeWithinItsBoundAndNoMore(t *testing.T) {
	cases := []struct {
		name      string
		size      int
		limit     int
		wantLen   int
		wantWhole bool
	}{
		{"a document within the bound is read whole", 700 << 10, MaxDocumentBytes, 700 << 10, true},
		{"a document of exactly the bound is whole", MaxDocumentBytes, MaxDocumentBytes, MaxDocumentBytes, true},
		{"a document past the bound is cut there, and not whole", MaxDocumentBytes + 1, MaxDocumentBytes, MaxDocumentBytes, false},
		{"another file keeps its head only", 700 << 10, maxFileHead, maxFileHead, false},
		{"a small file is its whole head", 1000, maxFileHead, 1000, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := bytes.Repeat([]byte{'x'}, c.size)
			resp := &http.Response{Body: io.NopCloser(bytes.NewReader(body))}
			head, whole, err := readHead(resp, c.limit)
			if err != nil || len(head) != c.wantLen || whole != c.wantWhole {
				t.Errorf("readHead = %d bytes, whole %v, err %v; want %d bytes, whole %v", len(head), whole, err, c.wantLen, c.wantWhole)
			}
		})
	}
}
