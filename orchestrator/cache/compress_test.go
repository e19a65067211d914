package cache

import (
	"strconv"
	"testing"
)

func TestPickEncodingHonoursWhatTheClientAccepts(t *testing.T) {
	cases := []struct {
		name, accept, want string
	}{
		{"nothing accepted", "", ""},
		{"identity only", "identity", ""},
		{"gzip", "gzip", "gzip"},
		{"gzip in capitals", "GZIP", "gzip"},
		{"the old x-gzip", "x-gzip", "gzip"},
		{"br", "br", "br"},
		{"what browsers send", "gzip, deflate, br, zstd", "br"},
		{"any coding", "*", "br"},
		{"br with a low but positive quality", "br;q=0.1, gzip", "br"},
		{"br refused with q=0", "br;q=0, gzip", "gzip"},
		{"br refused with spaces around q=0", "br ; q=0 , gzip", "gzip"},
		{"br refused with q=0.0", "br;q=0.0, gzip", "gzip"},
		{"br refused with q=0.000", "br;q=0.000, gzip", "gzip"},
		{"everything refused", "gzip;q=0, br;q=0", ""},
		{"any coding refused", "*;q=0", ""},
		{"deflate alone, which glimpse does not make", "deflate", ""},
	}
	for _, c := range cases {
		t.Run(c.name+": "+strconv.Quote(c.accept), func(t *testing.T) {
			if got := PickEncoding(c.accept); got != c.want {
				t.Errorf("PickEncoding(%q) = %q, want %q (RFC 9110 12.5.3: a quality of 0, written 0, 0.0 or 0.000, "+
					"means not acceptable)", c.accept, got, c.want)
			}
		})
	}
}
