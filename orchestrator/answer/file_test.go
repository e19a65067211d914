package answer

import (
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/render"
)

func TestNotAPageShowsTheTargetsTypeBounded(t *testing.T) {
	cases := []struct{ name, mediaType, want string }{
		{"an ordinary type is named", "application/zip", "`application/zip`"},
		{"a huge type is clipped", "application/" + strings.Repeat("x", 100_000), "…`"},
		{"control characters are escaped", "application/x\x1b[31mred", `\x1b`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := notAPage("screenshot", &render.File{MediaType: tc.mediaType})
			msg := e.Error()
			if len(msg) > 1024 || strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, tc.want) {
				t.Errorf("the message is %d bytes: %.300q; want it bounded, escaped and holding %q", len(msg), msg, tc.want)
			}
		})
	}
}
