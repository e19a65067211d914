package answer

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCappedReaderStopsPastTheCapAndOnlyThere(t *testing.T) {
	cases := []struct {
		name string
		size int
		over bool
	}{
		{"a file under the cap passes whole", 99, false},
		{"a file of exactly the cap passes whole", 100, false},
		{"a file one byte over the cap fails", 101, true},
		{"a much larger file fails at the cap", 10000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &cappedReader{r: strings.NewReader(strings.Repeat("x", tc.size)), left: 100}
			b, err := io.ReadAll(c)
			if tc.over {
				if !errors.Is(err, errFileTooLarge) || !c.over || len(b) > 100 {
					t.Errorf("read %d bytes, err %v, over %t; want a failure at the cap", len(b), err, c.over)
				}
				return
			}
			if err != nil || len(b) != tc.size || c.over {
				t.Errorf("read %d bytes, err %v, over %t; want all %d", len(b), err, c.over, tc.size)
			}
		})
	}
	t.Run("versions differ from one render to the next", func(t *testing.T) {
		if a, b := newFileVersion(), newFileVersion(); a == b || a == "" {
			t.Errorf("two versions %q and %q", a, b)
		}
	})
}
