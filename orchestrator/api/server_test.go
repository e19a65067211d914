package api

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

func TestResponseTimeReadsLikeMillisecondsOrSeconds(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{450 * time.Microsecond, "0ms"},
		{87 * time.Millisecond, "87ms"},
		{999*time.Millisecond + 900*time.Microsecond, "999ms"},
		{time.Second, "1.0s"},
		{1400 * time.Millisecond, "1.4s"},
		{1449 * time.Millisecond, "1.4s"},
		{12300 * time.Millisecond, "12.3s"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s is written %s", c.d, c.want), func(t *testing.T) {
			got := formatResponseTime(c.d)
			if got != c.want {
				t.Errorf("got %q", got)
			}
			if !responseTimeFormat.MatchString(got) {
				t.Errorf("%q does not have the header's format", got)
			}
		})
	}
}

// responseTimeFormat is x-response-time (docs/api.md#response-headers): whole milliseconds under
// a second, then seconds with one decimal.
var responseTimeFormat = regexp.MustCompile(`^([0-9]|[1-9][0-9]{1,2})ms$|^[1-9][0-9]*\.[0-9]s$`)
