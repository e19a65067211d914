package meta

import "testing"

func TestTypeFromContentType(t *testing.T) {
	for in, want := range map[string]string{
		"image/jpeg":                   "jpg",
		"image/JPEG; charset=binary":   "jpg",
		"image/png":                    "png",
		"image/gif":                    "gif",
		"image/webp":                   "webp",
		"image/avif":                   "avif",
		"image/svg+xml":                "svg",
		"image/svg+xml; charset=utf-8": "svg",
		"image/x-icon":                 "ico",
		"image/vnd.microsoft.icon":     "ico",
		"image/bmp":                    "bmp",
		"application/pdf":              "pdf",
		"video/mp4":                    "mp4",
		"audio/mpeg":                   "mp3",
		"text/html; charset=utf-8":     "html",
		"image/x-xbitmap":              "xbitmap",
		"image/x-portable-pixmap":      "",
		"application/octet-stream":     "",
		"":                             "",
		"garbage":                      "",
	} {
		if got := TypeFromContentType(in); got != want {
			t.Errorf("TypeFromContentType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrettyBytes(t *testing.T) {
	for in, want := range map[int64]string{
		0: "0 B", 1: "1 B", 999: "999 B", 1000: "1 kB", 1500: "1.5 kB", 48213: "48.2 kB", 181003: "181 kB",
		999999: "1000 kB", 1000000: "1 MB", 1500000: "1.5 MB", 10_250_000: "10.3 MB", 1e9: "1 GB", 3.3e12: "3.3 TB",
		-48213: "-48.2 kB",
	} {
		if got := PrettyBytes(in); got != want {
			t.Errorf("PrettyBytes(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestMediaTypeOfURL(t *testing.T) {
	cases := map[string]string{
		"https://a.test/v/film.MP4?x=1": "mp4",
		"https://a.test/film.m4v":       "mp4",
		"https://a.test/a.webm":         "webm",
		"https://a.test/song.mp3":       "mp3",
		"https://a.test/a.flac#t=3":     "flac",
		"https://a.test/photo.jpg":      "",
		"https://a.test/watch?v=1":      "",
		"%zz":                           "",
	}
	for in, want := range cases {
		if got := MediaTypeOfURL(in); got != want {
			t.Errorf("MediaTypeOfURL(%q) = %q, want %q", in, got, want)
		}
	}
}
