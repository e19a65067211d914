package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNewWritesJSONForProductionAndTextForATerminal(t *testing.T) {
	cases := []struct {
		name, format string
		isJSON       bool
	}{
		{"json gives one JSON object per line", "json", true},
		{"text gives key=value lines", "text", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			New(&buf, c.format, "info").Info("request", "request_id", "local:1", "status", 200)
			line := strings.TrimSpace(buf.String())
			var m map[string]any
			if got := json.Unmarshal([]byte(line), &m) == nil; got != c.isJSON {
				t.Fatalf("%s log line %q: JSON = %t, want %t", c.format, line, got, c.isJSON)
			}
			if !c.isJSON && !strings.Contains(line, "request_id=local:1") {
				t.Fatalf("text log line %q lacks request_id=local:1", line)
			}
		})
	}
	t.Run("the level filters", func(t *testing.T) {
		var buf bytes.Buffer
		New(&buf, "json", "warn").Info("quiet")
		if buf.Len() != 0 {
			t.Fatalf("an info line passed a warn level: %q", buf.String())
		}
	})
}
