package answer

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"syscall"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// bitWriter writes a JPEG's entropy-coded bits, stuffing a zero after
// every 0xFF byte.
type bitWriter struct {
	out   *bytes.Buffer
	acc   byte
	nbits int
}

func (w *bitWriter) bits(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | byte(v>>uint(i)&1)
		if w.nbits++; w.nbits == 8 {
			w.out.WriteByte(w.acc)
			if w.acc == 0xFF {
				w.out.WriteByte(0)
			}
			w.acc, w.nbits = 0, 0
		}
	}
}

func (w *bitWriter) flush() {
	for w.nbits != 0 {
		w.bits(1, 1)
	}
}

func segment(b *bytes.Buffer, marker byte, payload ...byte) {
	b.Write([]byte{0xFF, marker, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)})
	b.Write(payload)
}

// progressiveJPEG is a valid grey progressive JPEG of side×side pixels
// with one DC scan and then acScans spectral scans that each say only
// "every block ends here": a few bytes a scan, each of which costs the
// decoder a pass over every block of the picture.
func progressiveJPEG(side, acScans int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	segment(&b, 0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)...)
	segment(&b, 0xC2, 8, byte(side>>8), byte(side), byte(side>>8), byte(side), 1, 1, 0x11, 0)
	// DC table 0 and AC table 0, one code each, of one bit: DC category
	// 0, and an end-of-band run of 2^14 + 14 more bits.
	segment(&b, 0xC4, append(append([]byte{0x00, 1}, make([]byte, 15)...), 0x00)...)
	segment(&b, 0xC4, append(append([]byte{0x10, 1}, make([]byte, 15)...), 0xE0)...)
	blocks := (side / 8) * (side / 8)

	segment(&b, 0xDA, 1, 1, 0x00, 0, 0, 0x00)
	w := &bitWriter{out: &b}
	for range blocks {
		w.bits(0, 1)
	}
	w.flush()
	for range acScans {
		segment(&b, 0xDA, 1, 1, 0x00, 1, 63, 0x00)
		w := &bitWriter{out: &b}
		for n := 0; n < blocks; n += 1<<15 - 1 {
			w.bits(0, 1)
			w.bits(1<<14-1, 14)
		}
		w.flush()
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTheHostileJPEGIsAValidImage(t *testing.T) {
	data := progressiveJPEG(64, 3)
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != 64 {
		t.Fatalf("the crafted JPEG does not decode: %v", err)
	}
	if n, err := jpegScans(data); err != nil || n != 4 {
		t.Errorf("jpegScans = %d, %v; want 4", n, err)
	}
}

func TestBackgroundDecodesAreBoundedInWork(t *testing.T) {
	var ordinary bytes.Buffer
	pic := image.NewRGBA(image.Rect(0, 0, 640, 480))
	pic.Set(3, 3, color.RGBA{R: 200, A: 255})
	if err := jpeg.Encode(&ordinary, pic, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	hostile := progressiveJPEG(2048, 4000)
	t.Logf("the hostile JPEG: %d bytes, 2048×2048 pixels, 4001 scans", len(hostile))

	cases := []struct {
		name    string
		data    []byte
		timeout time.Duration
		want    string // "" decodes, else the code
		maxCPU  time.Duration
	}{
		{"an ordinary JPEG decodes", ordinary.Bytes(), 10 * time.Second, "", 2 * time.Second},
		{"a progressive JPEG of an ordinary ten scans decodes", progressiveJPEG(1024, 9), 10 * time.Second, "", 3 * time.Second},
		{"a progressive JPEG of thousands of scans is refused by its header", hostile, 10 * time.Second, apierr.CodeInvalidQuery, 500 * time.Millisecond},
		{"a costly decode within the limits stops at the request's deadline", progressiveJPEG(4096, 15), 100 * time.Millisecond, "deadline", 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), tc.timeout)
			defer cancel()
			before := cpuTime()
			img, err := FetchBackground(ctx, fixedSource{body: bytes.NewReader(tc.data), contentType: "image/jpeg"}, "https://example.com/bg.jpg")
			used := cpuTime() - before
			t.Logf("%s of CPU", used)
			switch tc.want {
			case "":
				if err != nil || img == nil {
					t.Fatalf("FetchBackground: %v", err)
				}
			case "deadline":
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("FetchBackground: %v, want the request's deadline", err)
				}
			default:
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Code != tc.want {
					t.Fatalf("FetchBackground: %v, want %s", err, tc.want)
				}
			}
			if used > tc.maxCPU {
				t.Errorf("the decode used %s of CPU, more than %s", used, tc.maxCPU)
			}
		})
	}
}
