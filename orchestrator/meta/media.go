package meta

import (
	"math"
	"math/big"
	"mime"
	"strconv"
	"strings"
)

// contentTypes maps media types to the short type names the API reports.
var contentTypes = map[string]string{
	"image/jpeg": "jpg", "image/jpg": "jpg", "image/pjpeg": "jpg", "image/jfif": "jpg",
	"image/png": "png", "image/apng": "png", "image/x-png": "png",
	"image/gif": "gif", "image/webp": "webp", "image/avif": "avif",
	"image/svg+xml": "svg", "image/svg": "svg",
	"image/x-icon": "ico", "image/vnd.microsoft.icon": "ico", "image/ico": "ico", "image/icon": "ico", "image/x-ico": "ico",
	"image/bmp": "bmp", "image/x-bmp": "bmp", "image/x-ms-bmp": "bmp",
	"image/tiff": "tiff", "image/heic": "heic", "image/heif": "heif", "image/jxl": "jxl",
	"application/pdf": "pdf", "application/x-pdf": "pdf",
	"video/mp4": "mp4", "video/webm": "webm", "video/quicktime": "mov", "video/ogg": "ogv",
	"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/ogg": "ogg", "audio/wav": "wav", "audio/x-wav": "wav",
	"audio/mp4": "m4a", "audio/aac": "aac", "audio/flac": "flac", "audio/webm": "weba",
	"text/html": "html", "application/xhtml+xml": "html", "text/plain": "txt", "text/css": "css",
	"application/json": "json", "application/javascript": "js", "text/javascript": "js", "application/xml": "xml", "text/xml": "xml",
}

// TypeFromContentType turns a Content-Type header into the short type the
// API reports: "image/jpeg" → "jpg", "image/svg+xml" → "svg",
// "image/x-icon" and "image/vnd.microsoft.icon" → "ico", "application/pdf" →
// "pdf". Parameters and case are ignored. An unknown image, audio or video
// subtype of at most eight letters and digits is returned without its x-
// prefix (image/x-xbitmap → "xbitmap"); anything else gives "".
func TypeFromContentType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	if t, ok := contentTypes[mt]; ok {
		return t
	}
	top, sub, ok := strings.Cut(mt, "/")
	if !ok || (top != "image" && top != "audio" && top != "video") {
		return ""
	}
	sub = strings.TrimPrefix(sub, "x-")
	if sub == "" || len(sub) > 8 || strings.IndexFunc(sub, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) >= 0 {
		return ""
	}
	return sub
}

// imageTypeOnly keeps the types an image candidate may have.
func imageTypeOnly(t string) string {
	switch t {
	case "jpg", "png", "gif", "webp", "svg", "ico", "avif", "bmp":
		return t
	}
	return ""
}

// PrettyBytes formats a byte count the way the npm pretty-bytes package does:
// decimal units, three significant digits, trailing zeros dropped — 999 →
// "999 B", 48213 → "48.2 kB", 181003 → "181 kB", 1500000 → "1.5 MB".
func PrettyBytes(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	neg := n < 0
	v := float64(n)
	if neg {
		v = -v
	}
	prefix := ""
	if neg {
		prefix = "-"
	}
	if v < 1000 {
		return prefix + strconv.FormatFloat(v, 'f', -1, 64) + " B"
	}
	exp := 0
	for v >= 1000 && exp < len(units)-1 {
		v /= 1000
		exp++
	}
	return prefix + strconv.FormatFloat(toPrecision3(v), 'f', -1, 64) + " " + units[exp]
}

// toPrecision3 rounds v (positive) to three significant digits the way
// JavaScript's Number.prototype.toPrecision does: on the exact binary value,
// halves rounding up (10.25 → 10.3, where Go's formatting would give 10.2).
func toPrecision3(v float64) float64 {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	e := int(math.Floor(math.Log10(v)))
	k := 2 - e // v·10^k has three digits before the point
	x := new(big.Float).SetPrec(256).SetFloat64(v)
	p := new(big.Float).SetPrec(256).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil))
	if k >= 0 {
		x.Mul(x, p)
	} else {
		x.Quo(x, p)
	}
	x.Add(x, big.NewFloat(0.5))
	n, _ := x.Int(nil)
	r, err := strconv.ParseFloat(n.String()+"e"+strconv.Itoa(-k), 64)
	if err != nil {
		return v
	}
	return r
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
