package meta

import (
	"bytes"
	"encoding/binary"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ImageInfo reads the type and pixel size of an image from its first bytes,
// without decoding it: PNG, JPEG (up to its SOF marker), GIF, WebP (VP8,
// VP8L, VP8X), SVG (width and height attributes, else the viewBox), ICO and
// CUR (the largest entry; 0 in the directory means 256), BMP, AVIF and HEIC
// (the largest ispe box). ok reports that head is the start of an image of a
// known format; width and height are 0 when the bytes given do not reach the
// place that states them (a JPEG with a long EXIF block, an SVG without
// size). A few kilobytes are enough for almost every file.
func ImageInfo(head []byte) (typ string, width, height int, ok bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		w, h := pngSize(head)
		return "png", w, h, true
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		w, h := jpegSize(head)
		return "jpg", w, h, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		if len(head) >= 10 {
			return "gif", int(binary.LittleEndian.Uint16(head[6:])), int(binary.LittleEndian.Uint16(head[8:])), true
		}
		return "gif", 0, 0, true
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		w, h := webpSize(head)
		return "webp", w, h, true
	case len(head) >= 6 && head[0] == 0 && head[1] == 0 && (head[2] == 1 || head[2] == 2) && head[3] == 0 &&
		binary.LittleEndian.Uint16(head[4:]) > 0:
		w, h := icoSize(head)
		return "ico", w, h, true
	case len(head) >= 18 && head[0] == 'B' && head[1] == 'M':
		w, h := bmpSize(head)
		return "bmp", w, h, true
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		if t := heifBrand(head); t != "" {
			w, h := ispeSize(head)
			return t, w, h, true
		}
	}
	if w, h, isSVG := svgSize(head); isSVG {
		return "svg", w, h, true
	}
	return "", 0, 0, false
}

// Negligible reports a raster image too small to show anything: the 1×1 and
// 2×2 pictures tracking pixels and spacers are made of.
func Negligible(width, height int) bool {
	return width > 0 && height > 0 && width <= 2 && height <= 2
}

func pngSize(b []byte) (int, int) {
	off := 16
	if len(b) >= 16 && string(b[12:16]) == "CgBI" { // Apple's optimised PNG puts a chunk first
		off = 32
	}
	if len(b) < off+8 || string(b[off-4:off]) != "IHDR" {
		return 0, 0
	}
	return int(binary.BigEndian.Uint32(b[off:])), int(binary.BigEndian.Uint32(b[off+4:]))
}

// jpegSize walks the JPEG markers up to the first start-of-frame.
func jpegSize(b []byte) (int, int) {
	i := 2
	for i+1 < len(b) {
		if b[i] != 0xff {
			return 0, 0 // not at a marker: corrupt
		}
		for i < len(b) && b[i] == 0xff { // fill bytes
			i++
		}
		if i >= len(b) {
			return 0, 0
		}
		m := b[i]
		switch {
		case m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7):
			i++ // markers without a length
			continue
		case m == 0xd9 || m == 0xda:
			return 0, 0 // end of image or start of scan before any frame
		}
		if i+2 >= len(b) {
			return 0, 0
		}
		length := int(binary.BigEndian.Uint16(b[i+1:]))
		if length < 2 {
			return 0, 0
		}
		if m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc {
			if i+8 > len(b) {
				return 0, 0
			}
			return int(binary.BigEndian.Uint16(b[i+6:])), int(binary.BigEndian.Uint16(b[i+4:]))
		}
		i += 1 + length
	}
	return 0, 0
}

func webpSize(b []byte) (int, int) {
	if len(b) < 16 {
		return 0, 0
	}
	switch string(b[12:16]) {
	case "VP8 ": // lossy: a key frame's start code, then 14-bit sizes
		if len(b) >= 30 && b[23] == 0x9d && b[24] == 0x01 && b[25] == 0x2a {
			return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff)
		}
	case "VP8L": // lossless: 14-bit sizes minus one, bit-packed after the signature
		if len(b) >= 25 && b[20] == 0x2f {
			b1, b2, b3, b4 := int(b[21]), int(b[22]), int(b[23]), int(b[24])
			w := 1 + ((b2&0x3f)<<8 | b1)
			h := 1 + ((b4&0x0f)<<10 | b3<<2 | (b2&0xc0)>>6)
			return w, h
		}
	case "VP8X": // extended: 24-bit canvas sizes minus one
		if len(b) >= 30 {
			w := 1 + (int(b[24]) | int(b[25])<<8 | int(b[26])<<16)
			h := 1 + (int(b[27]) | int(b[28])<<8 | int(b[29])<<16)
			return w, h
		}
	}
	return 0, 0
}

func icoSize(b []byte) (int, int) {
	n := int(binary.LittleEndian.Uint16(b[4:]))
	bw, bh := 0, 0
	for i := 0; i < n; i++ {
		e := 6 + 16*i
		if e+2 > len(b) {
			break
		}
		w, h := int(b[e]), int(b[e+1])
		if w == 0 {
			w = 256
		}
		if h == 0 {
			h = 256
		}
		if w*h > bw*bh {
			bw, bh = w, h
		}
	}
	return bw, bh
}

func bmpSize(b []byte) (int, int) {
	dib := binary.LittleEndian.Uint32(b[14:])
	switch {
	case dib == 12 && len(b) >= 22: // OS/2 BITMAPCOREHEADER
		return int(binary.LittleEndian.Uint16(b[18:])), int(binary.LittleEndian.Uint16(b[20:]))
	case dib >= 40 && len(b) >= 26:
		w := int(int32(binary.LittleEndian.Uint32(b[18:])))
		h := int(int32(binary.LittleEndian.Uint32(b[22:])))
		if h < 0 {
			h = -h // top-down bitmap
		}
		if w < 0 {
			return 0, 0
		}
		return w, h
	}
	return 0, 0
}

// heifBrand tells AVIF and HEIC files apart by their ftyp brands.
func heifBrand(b []byte) string {
	size := int(binary.BigEndian.Uint32(b[0:]))
	if size < 16 || size > len(b) {
		size = min(len(b), 64)
	}
	brands := []string{string(b[8:12])}
	for i := 16; i+4 <= size; i += 4 {
		brands = append(brands, string(b[i:i+4]))
	}
	for _, br := range brands {
		if br == "avif" || br == "avis" {
			return "avif"
		}
	}
	for _, br := range brands {
		if br == "heic" || br == "heix" || br == "hevc" || br == "heim" || br == "heis" {
			return "heic"
		}
	}
	return ""
}

// ispeSize returns the largest image spatial extents (ispe) property: the
// primary image, not its thumbnail or alpha plane.
func ispeSize(b []byte) (int, int) {
	bw, bh := 0, 0
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("ispe"))
		if j < 0 {
			break
		}
		k := i + j
		if k+16 <= len(b) {
			w, h := int(binary.BigEndian.Uint32(b[k+8:])), int(binary.BigEndian.Uint32(b[k+12:]))
			if w*h > bw*bh && w < 1<<16 && h < 1<<16 {
				bw, bh = w, h
			}
		}
		i = k + 4
	}
	return bw, bh
}

var (
	svgAttrRe   = regexp.MustCompile(`(?is)\s(width|height|viewbox)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	svgLengthRe = regexp.MustCompile(`^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*$`)
)

// svgSize reads the root <svg> element of an SVG document: after an optional
// byte-order mark, XML declaration, comments and doctype, the first element
// must be svg — an HTML page with inline SVG is not an SVG image.
func svgSize(b []byte) (w, h int, ok bool) {
	s := string(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "<?"):
			end := strings.Index(s, "?>")
			if end < 0 {
				return 0, 0, false
			}
			s = s[end+2:]
			continue
		case strings.HasPrefix(s, "<!--"):
			end := strings.Index(s, "-->")
			if end < 0 {
				return 0, 0, false
			}
			s = s[end+3:]
			continue
		case strings.HasPrefix(s, "<!"):
			end := strings.Index(s, ">")
			if end < 0 {
				return 0, 0, false
			}
			s = s[end+1:]
			continue
		}
		break
	}
	lower := strings.ToLower(s)
	if !strings.HasPrefix(lower, "<svg") && !strings.HasPrefix(lower, "<svg:svg") {
		return 0, 0, false
	}
	if len(lower) > 4 && !strings.HasPrefix(lower, "<svg:") && strings.IndexByte(" \t\r\n>/", lower[4]) < 0 {
		return 0, 0, false // <svgfoo>
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		end = len(s) // a truncated head: read what attributes there are
	}
	var fw, fh float64
	var vb []float64
	for _, m := range svgAttrRe.FindAllStringSubmatch(s[:end], -1) {
		v := m[2] + m[3]
		switch strings.ToLower(m[1]) {
		case "width":
			fw = svgLength(v)
		case "height":
			fh = svgLength(v)
		case "viewbox":
			for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
				n, err := strconv.ParseFloat(f, 64)
				if err != nil {
					vb = nil
					break
				}
				vb = append(vb, n)
			}
		}
	}
	if len(vb) == 4 && vb[2] > 0 && vb[3] > 0 {
		switch {
		case fw == 0 && fh == 0:
			fw, fh = vb[2], vb[3]
		case fw == 0:
			fw = fh * vb[2] / vb[3]
		case fh == 0:
			fh = fw * vb[3] / vb[2]
		}
	}
	if fw <= 0 || fh <= 0 || fw > 1e6 || fh > 1e6 {
		return 0, 0, true
	}
	return int(math.Round(fw)), int(math.Round(fh)), true
}

// svgLength converts an absolute SVG length to CSS pixels; relative ones
// (%, em) give 0.
func svgLength(v string) float64 {
	m := svgLengthRe.FindStringSubmatch(strings.ToLower(v))
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	switch m[2] {
	case "pt":
		n *= 96.0 / 72
	case "pc":
		n *= 16
	case "mm":
		n *= 96 / 25.4
	case "cm":
		n *= 96 / 2.54
	case "in":
		n *= 96
	}
	return n
}
