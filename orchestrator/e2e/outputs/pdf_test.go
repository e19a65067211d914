package outputs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/storage"
	"github.com/glimpse/glimpse/storage/miniotest"
)

// The PDF tests render real pages in the embedded Chromium and store the
// result in both storage kinds: the local directory of the embedded default
// and a real MinIO. Each kind gets one app that its cases share, and the
// cases that read the heap or stop MinIO get apps of their own; the
// documents are checked with poppler-utils, never with glimpse's own code.

// pdfProbePage is one word in a fixed-size font at the top left corner of a
// green page, so margins move the word, scale resizes it and the green
// shows whether backgrounds were printed.
const pdfProbePage = `<!doctype html><html lang="en"><head><title>PDF probe</title>
<style>html,body{margin:0;padding:0;background:#00ff00}p{margin:0;font:20px/1 monospace;color:#000}</style>
</head><body><p>MARGINPROBE</p></body></html>`

// pdfSectionsPage has five pages, each naming its number.
const pdfSectionsPage = `<!doctype html><html lang="en"><head><title>Five sections</title>
<style>body{margin:0;font:16px sans-serif}section{break-after:page}section:last-child{break-after:auto}</style>
</head><body>
<section>SECTION-1</section><section>SECTION-2</section><section>SECTION-3</section>
<section>SECTION-4</section><section>SECTION-5</section>
</body></html>`

// pdfMediaPage tells print media from screen media twice: in its title,
// set by a script while the document is parsed (what metadata reads), and
// in which paragraph its style hides (what the PDF shows).
const pdfMediaPage = `<!doctype html><html lang="en"><head>
<script>document.title = matchMedia("print").matches ? "Rendered for print" : "Rendered for screen";</script>
<style>@media print{.on-screen{display:none}} @media screen{.on-print{display:none}}</style>
</head><body><p class="on-print">PRINTMEDIA</p><p class="on-screen">SCREENMEDIA</p></body></html>`

// pdfLongPages is how many pages of text the long page prints to, and
// pdfLongImages how many of them also carry a photo-sized picture of
// noise: text alone compresses to a few kB a page, and the pictures make
// the document large enough that holding it whole would show in the heap.
const (
	pdfLongPages  = 320
	pdfLongImages = 80
)

// pdfLongPage builds its text in the browser, so that the test process
// holds only a few kB of it.
var pdfLongPage = fmt.Sprintf(`<!doctype html><html lang="en"><head><title>A long report</title>
<style>body{margin:0;font:12px serif}section{break-after:page}img{display:block;width:480px}</style>
</head><body><script>
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) %% 2147483648) >> 8;
const word = () => { let w = ""; for (let n = 3 + next() %% 8; n > 0; n--) w += String.fromCharCode(97 + next() %% 26); return w; };
const out = [];
for (let p = 1; p <= %d; p++) {
  const words = []; for (let k = 0; k < 160; k++) words.push(word());
  const img = p %% 4 === 0 && p / 4 <= %d ? "<img src='/noise.jpg?" + p + "'>" : "";
  out.push("<section><h2>Page " + p + "</h2><p>" + words.join(" ") + "</p>" + img + "</section>");
}
document.write(out.join(""));
</script></body></html>`, pdfLongPages, pdfLongImages)

// pdfEnv is one app on one kind of storage, with the pages it renders.
type pdfEnv struct {
	app   *e2e.App
	ps    *e2e.PageServer
	minio *miniotest.Server // nil for the local directory
	mc    *minio.Client     // a client of our own, to look into the bucket
	png   []byte            // the page's image, for embed=image.url
	icon  []byte            // the page's icon, for embed=logo.url
	noise []byte            // the long page's picture
}

const pdfBucket = "glimpse-pdf-test"

// startPDFEnv starts one app on the given storage and the test pages.
func startPDFEnv(t *testing.T, withMinIO bool) *pdfEnv {
	t.Helper()
	pdfRequirePoppler(t)
	env := &pdfEnv{
		png:   pdfTestPNG(t, 40, 30, color.RGBA{200, 30, 30, 255}),
		icon:  pdfTestPNG(t, 16, 16, color.RGBA{30, 30, 200, 255}),
		noise: pdfNoiseJPEG(t, 700),
	}
	if withMinIO {
		env.minio = miniotest.New(t)
	}
	env.app = e2e.StartApp(t, func(c *orchestrator.Config) {
		// Four renders at once let the tables run side by side.
		c.SidecarConcurrency = 4
		// The long document is about streaming, not time: on a loaded
		// machine its 320 pages may take longer than the default bound.
		c.MaxTimeout = pdfMaxTimeout
		// MinIO lists the unfinished uploads of one exact key only, so the
		// outage tests name the files before they are stored.
		if withMinIO {
			c.FileVersion = func() string { return pdfFileVersion }
		}
		if env.minio != nil {
			c.S3Endpoint = env.minio.Endpoint
			c.S3AccessKey = env.minio.AccessKey
			c.S3SecretKey = env.minio.SecretKey
			c.S3Bucket = pdfBucket
		}
	})
	if env.minio != nil {
		mc, err := minio.New(env.minio.Endpoint, &minio.Options{
			Creds:  credentials.NewStaticV4(env.minio.AccessKey, env.minio.SecretKey, ""),
			Region: "us-east-1",
		})
		if err != nil {
			t.Fatal(err)
		}
		env.mc = mc
	}
	pngHandler := func(b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "image/png")
			w.Write(b)
		}
	}
	env.ps = e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/probe":    e2e.HTML(pdfProbePage),
		"/sections": e2e.HTML(pdfSectionsPage),
		"/media":    e2e.HTML(pdfMediaPage),
		"/long":     e2e.HTML(pdfLongPage),
		"/noise.jpg": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "image/jpeg")
			w.Write(env.noise)
		},
		"/with-images": e2e.HTML(`<!doctype html><html lang="en"><head><title>Pictures</title>
<meta property="og:image" content="/cover.png"><link rel="icon" href="/icon.png"></head><body><p>Pictures.</p></body></html>`),
		"/plain":     e2e.HTML(`<!doctype html><html lang="en"><head><title>Plain</title></head><body><p>No pictures.</p></body></html>`),
		"/cover.png": pngHandler(env.png),
		"/icon.png":  pngHandler(env.icon),
	})
	return env
}

func (env *pdfEnv) kind() string {
	if env.minio != nil {
		return "MinIO"
	}
	return "the local directory"
}

// pdfRender asks for a PDF and fails the test unless it is a success with
// a data.pdf object; it returns the answer and that object.
func (env *pdfEnv) pdfRender(t *testing.T, path, query string) (e2e.Answer, pdfObject) {
	t.Helper()
	a := env.app.Get(env.ps.URL+path, query)
	if a.HTTP != 200 || a.Status != "success" {
		t.Fatalf("GET ?url=%s&%s answered %d %s %s: %s", path, query, a.HTTP, a.Code, a.Message, a.Raw)
	}
	var d struct {
		PDF *pdfObject `json:"pdf"`
	}
	if err := json.Unmarshal(a.Data, &d); err != nil || d.PDF == nil {
		t.Fatalf("the answer has no data.pdf object: %s", a.Raw)
	}
	return a, *d.PDF
}

// pdfObject is data.pdf as docs/api.md#the-data-object describes it.
type pdfObject struct {
	URL        string `json:"url"`
	Type       string `json:"type"`
	Size       int64  `json:"size"`
	SizePretty string `json:"size_pretty"`
}

// fetchStored downloads data.pdf.url with a client of its own, as someone
// who never talks to glimpse would, and checks that the object is
// described truthfully.
func (env *pdfEnv) fetchStored(t *testing.T, o pdfObject) []byte {
	t.Helper()
	u, err := url.Parse(o.URL)
	if err != nil {
		t.Fatalf("data.pdf.url %q is not a URL: %v", o.URL, err)
	}
	if env.minio != nil {
		if u.Host != env.minio.Endpoint {
			t.Errorf("data.pdf.url %s does not point at the bucket on %s; with MinIO it must not need glimpse to answer", o.URL, env.minio.Endpoint)
		}
	} else if _, port, _ := net.SplitHostPort(env.app.Addr()); u.Port() != port || !strings.HasPrefix(u.Path, "/files/") {
		t.Errorf("data.pdf.url %s is not under this service's /files/", o.URL)
	}
	if o.Type != "pdf" {
		t.Errorf("data.pdf.type = %q, want pdf", o.Type)
	}
	client := &http.Client{Timeout: 60 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(o.URL)
	if err != nil {
		t.Fatalf("fetching data.pdf.url %s: %v", o.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading data.pdf.url %s: %v", o.URL, err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("data.pdf.url %s answered %d: %.200s", o.URL, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("content-type"); ct != "application/pdf" {
		t.Errorf("data.pdf.url is served as %q, want application/pdf", ct)
	}
	if int64(len(b)) != o.Size {
		t.Errorf("data.pdf.size = %d, but data.pdf.url holds %d bytes", o.Size, len(b))
	}
	pdfCheckPrettyBytes(t, o.SizePretty, o.Size)
	return b
}

// pdfCheckPrettyBytes checks size_pretty the way the pretty-bytes package
// writes sizes: decimal units, three significant digits.
func pdfCheckPrettyBytes(t *testing.T, pretty string, size int64) {
	t.Helper()
	m := regexp.MustCompile(`^(\d+(?:\.\d+)?) (B|kB|MB|GB)$`).FindStringSubmatch(pretty)
	if m == nil {
		t.Errorf("size_pretty = %q, want a number and a decimal unit such as \"181 kB\" or \"38.2 MB\"", pretty)
		return
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[m[2]]
	want := float64(size) / unit
	if want < 1 || want >= 1000 && m[2] != "GB" {
		t.Errorf("size_pretty = %q for %d bytes, want the unit that puts the number between 1 and 1000", pretty, size)
	}
	if digits := len(strings.ReplaceAll(strings.TrimLeft(m[1], "0."), ".", "")); digits > 3 {
		t.Errorf("size_pretty = %q has more than three significant digits", pretty)
	}
	if math.Abs(v-want) > 0.006*want+1e-9 {
		t.Errorf("size_pretty = %q, but %d bytes are %.4g %s in decimal units", pretty, size, want, m[2])
	}
}

// pdfRequirePoppler fails, naming the package, when the PDF tools are missing.
func pdfRequirePoppler(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"pdfinfo", "pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(bin); err != nil {
			testtool.Missingf(t, "%s is not installed; the PDF tests read documents with poppler-utils: run `make deps` or apt-get install poppler-utils", bin)
		}
	}
}

// pdfDoc is what poppler-utils read from a document.
type pdfDoc struct {
	path          string
	pages         int
	width, height float64  // first page, in points, as it is displayed
	text          []string // per page
}

func pdfInspect(t *testing.T, b []byte) *pdfDoc {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("the document does not start with %%PDF- (%d bytes): %.60q", len(b), b)
	}
	if !bytes.HasSuffix(bytes.TrimRight(b, "\r\n "), []byte("%%EOF")) {
		t.Fatalf("the document (%d bytes) does not end with %%%%EOF: it is cut short", len(b))
	}
	f, err := os.CreateTemp(t.TempDir(), "*.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
	d := &pdfDoc{path: f.Name()}
	info := runPoppler(t, "pdfinfo", d.path)
	pages := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindStringSubmatch(info)
	size := regexp.MustCompile(`(?m)^Page size:\s+([\d.]+) x ([\d.]+) pts`).FindStringSubmatch(info)
	if pages == nil || size == nil {
		t.Fatalf("pdfinfo does not read the document as a PDF:\n%s", info)
	}
	d.pages, _ = strconv.Atoi(pages[1])
	d.width, _ = strconv.ParseFloat(size[1], 64)
	d.height, _ = strconv.ParseFloat(size[2], 64)
	if rot := regexp.MustCompile(`(?m)^Page rot:\s+(\d+)`).FindStringSubmatch(info); rot != nil && (rot[1] == "90" || rot[1] == "270") {
		d.width, d.height = d.height, d.width
	}
	text := runPoppler(t, "pdftotext", "-layout", d.path, "-")
	d.text = strings.Split(strings.TrimSuffix(text, "\f"), "\f")
	return d
}

func runPoppler(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// pdfWordBox is where pdftotext finds a word on the first page, in points
// from the top left corner.
type pdfWordBox struct{ xMin, yMin, xMax, yMax float64 }

func (d *pdfDoc) word(t *testing.T, w string) pdfWordBox {
	t.Helper()
	out := runPoppler(t, "pdftotext", "-bbox", "-f", "1", "-l", "1", d.path, "-")
	re := regexp.MustCompile(`<word xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)">` + regexp.QuoteMeta(w) + `</word>`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the word %s is not on the first page:\n%s", w, out)
	}
	var v [4]float64
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	return pdfWordBox{v[0], v[1], v[2], v[3]}
}

// centreColour rasterises the first page and returns its middle pixel.
func (d *pdfDoc) centreColour(t *testing.T) color.RGBA {
	t.Helper()
	out := filepath.Join(t.TempDir(), "page")
	runPoppler(t, "pdftoppm", "-r", "12", "-png", "-f", "1", "-l", "1", "-singlefile", d.path, out)
	f, err := os.Open(out + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	r, g, bl, _ := img.At((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
}

func pdfTestPNG(t *testing.T, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pdfNoiseJPEG is a picture that does not compress. Chromium copies a JPEG
// into the PDF as it is, so every copy on the page adds its full size.
func pdfNoiseJPEG(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pdfNear(got, want, tolerance float64) bool { return math.Abs(got-want) <= tolerance }

// cm and mm in points.
const (
	pdfPtPerCM = 72 / 2.54
	pdfPtPerMM = 72 / 25.4
)

// pdfGroup runs a group of cases beside the other groups of its test: each
// renders pages of its own and reads nothing the others change, so one
// group's slowest case does not hold the next group back.
func pdfGroup(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		f(t)
	})
}

func TestPDFOnTheLocalDirectory(t *testing.T) {
	t.Parallel()
	env := startPDFEnv(t, false)
	pdfGroup(t, "every paper format and orientation gives its page size", func(t *testing.T) { testPDFFormats(t, env) })
	pdfGroup(t, "margins, scale, size and background shape the page", func(t *testing.T) { testPDFLayout(t, env) })
	pdfGroup(t, "page ranges print the asked pages", func(t *testing.T) { testPDFPageRanges(t, env) })
	pdfGroup(t, "print media is emulated for PDFs and screen media otherwise", func(t *testing.T) { testPDFMedia(t, env) })
	pdfGroup(t, "embed=pdf.url answers with the stored document itself", func(t *testing.T) { testPDFEmbed(t, env) })
	pdfGroup(t, "embed of image.url and logo.url answers with the asset", func(t *testing.T) { testPDFEmbedAssets(t, env) })
	pdfGroup(t, "bad PDF parameters are refused with EINVALQUERY naming the parameter and what it accepts", func(t *testing.T) {
		testPDFQueryErrors(t, env)
	})
	pdfGroup(t, "data.pdf.url works whatever GLIMPSE_PUBLIC_BASE_URL names", func(t *testing.T) { testPDFPublicBase(t, env) })
	pdfGroup(t, "a render again gets a new file, and the old one still serves its bytes", func(t *testing.T) {
		_, first := env.pdfRender(t, "/probe", "pdf=true&meta=false")
		_, again := env.pdfRender(t, "/probe", "pdf=true&meta=false&force=true")
		if first.URL == again.URL {
			t.Fatalf("a forced render was stored at the same %s: a file served as immutable must never change", first.URL)
		}
		env.fetchStored(t, first)
		env.fetchStored(t, again)
	})
	pdfGroup(t, "an answer whose file was swept away is rendered again, not served", func(t *testing.T) {
		_, first := env.pdfRender(t, "/probe?swept", "pdf=true&meta=false")
		local := env.app.Store.(*storage.Local)
		u, _ := url.Parse(first.URL)
		key := storage.PublicPrefix + strings.TrimPrefix(u.Path, "/files/")
		if err := os.Remove(filepath.Join(local.Dir(), filepath.FromSlash(key))); err != nil {
			t.Fatalf("removing the stored file as a sweep would: %v", err)
		}
		a, again := env.pdfRender(t, "/probe?swept", "pdf=true&meta=false")
		if a.Header.Get("x-cache-status") != "MISS" || again.URL == first.URL {
			t.Errorf("x-cache-status %q, url %s: an answer naming a file that is gone was served", a.Header.Get("x-cache-status"), again.URL)
		}
		env.fetchStored(t, again)
	})
}

// TestPDFOnMinIO repeats what depends on storage: where the document goes
// and who can fetch it; what happens when the bucket goes away is in
// TestPDFOnAStoppedMinIO and TestPDFLongDocumentsAlone. What depends on
// the browser alone is tested on the local directory.
func TestPDFOnMinIO(t *testing.T) {
	t.Parallel()
	env := startPDFEnv(t, true)
	pdfGroup(t, "margins, scale, size and background shape the page", func(t *testing.T) { testPDFLayout(t, env) })
	pdfGroup(t, "embed=pdf.url answers with the stored document itself", func(t *testing.T) { testPDFEmbed(t, env) })
	// This case lists the bucket before and after, so it is not a group:
	// Go runs it while the groups wait, with nothing else storing there.
	t.Run("a PDF over GLIMPSE_MAX_FILE_BYTES is a 400 that leaves nothing behind", func(t *testing.T) {
		small := e2e.StartApp(t, func(c *orchestrator.Config) {
			c.S3Endpoint, c.S3AccessKey, c.S3SecretKey, c.S3Bucket = env.minio.Endpoint, env.minio.AccessKey, env.minio.SecretKey, pdfBucket
			c.FileVersion = func() string { return pdfFileVersion }
			c.MaxFileBytes = 64 << 10
		})
		before := env.storedPDFs(t)
		a := small.Get(env.ps.URL+"/long?cap", "pdf=true&meta=false&force=true&timeout=60s")
		if a.HTTP != 400 || a.Code != "EINVALQUERY" || !strings.Contains(a.Message, "GLIMPSE_MAX_FILE_BYTES") {
			t.Fatalf("a PDF over the cap answered %d %s %s; want 400 EINVALQUERY naming GLIMPSE_MAX_FILE_BYTES", a.HTTP, a.Code, a.Message)
		}
		env.checkNothingNew(t, before)
		if left := env.unfinishedUploads(t, pdfObjectKey(t, env, "/long?cap", "pdf=true&meta=false&force=true&timeout=60s")); len(left) > 0 {
			t.Errorf("the refused PDF left %d unfinished uploads: %s", len(left), env.abortLeftovers(t, left))
		}
	})
	pdfGroup(t, "data.pdf.url works whatever GLIMPSE_PUBLIC_BASE_URL names", func(t *testing.T) { testPDFPublicBase(t, env) })
}

// TestPDFOnAStoppedMinIO stops the bucket of an app of its own, and
// counts that app's browser pages and the objects in that bucket, so it
// can run beside the other tests. The outage in the middle of an upload
// is in TestPDFLongDocumentsAlone, whose long document follows it.
func TestPDFOnAStoppedMinIO(t *testing.T) {
	t.Parallel()
	env := startPDFEnv(t, true)
	t.Run("MinIO stopped before the upload gives a storage error, leaves nothing behind and recovers", func(t *testing.T) {
		testPDFStorageDownBeforeUpload(t, env)
	})
}

// TestPDFLongDocumentsAlone holds that a long document streams to each
// kind of storage without being held in memory, which it reads in the
// process's heap: it does not call t.Parallel, so Go runs it before the
// parallel tests start and nothing beside it allocates. Each kind gets an
// app of its own, stopped before the next starts. On MinIO the upload
// that MinIO dies in the middle of comes first: the long document then
// goes to the key that upload left, once the bucket is back.
func TestPDFLongDocumentsAlone(t *testing.T) {
	t.Run("on the local directory", func(t *testing.T) {
		env := startPDFEnv(t, false)
		t.Run("a 320-page document streams to storage without being held in memory", func(t *testing.T) {
			testPDFLongDocument(t, env, "/long")
		})
	})
	t.Run("on MinIO", func(t *testing.T) {
		env := startPDFEnv(t, true)
		t.Run("MinIO stopped in the middle of an upload leaves no object and no parts behind", func(t *testing.T) {
			testPDFStorageDiesMidUpload(t, env)
		})
		t.Run("once MinIO is back, a 320-page document streams to it without being held in memory", func(t *testing.T) {
			// The same document as the interrupted upload: its key must work
			// again once the parts of the failed attempt are gone.
			o := testPDFLongDocument(t, env, pdfMidUploadPath)
			if key := pdfObjectKey(t, env, pdfMidUploadPath, pdfLongQuery); !strings.HasSuffix(o.URL, "/"+key) {
				t.Errorf("the document is stored at %s, not under the key %s of the interrupted upload", o.URL, key)
			}
		})
	})
}

// pdfLongQuery asks for the long document; pdfMidUploadPath is its target
// in the outage test. The apps of these tests allow a timeout up to
// pdfMaxTimeout.
const (
	pdfMaxTimeout    = 3 * time.Minute
	pdfLongQuery     = "pdf=true&meta=false&force=true&timeout=150s"
	pdfMidUploadPath = "/long?outage=mid-upload"
)

// pdfObjectKey is the storage key of a request's PDF, worked out the way
// the service names it. MinIO lists unfinished uploads of one exact key
// only, so the outage tests need it before the request has an answer.
func pdfObjectKey(t *testing.T, env *pdfEnv, path, rawQuery string) string {
	t.Helper()
	limits := query.DefaultLimits()
	limits.MaxTimeout = pdfMaxTimeout
	req, err := query.Parse("url="+url.QueryEscape(env.ps.URL+path)+"&"+rawQuery, limits)
	if err != nil {
		t.Fatal(err)
	}
	return storage.PublicPrefix + "pdf/" + query.Key(req) + "-" + pdfFileVersion + ".pdf"
}

// pdfFileVersion is the version of every file of the MinIO tests.
const pdfFileVersion = "test"

func testPDFFormats(t *testing.T, env *pdfEnv) {
	// Sizes in points from the standards (ISO 216 in millimetres, ANSI in
	// inches), not from glimpse's table. Each format is spelt in another
	// case, as the caller may.
	formats := []struct {
		spelling string
		w, h     float64
	}{
		{"A0", 841 * pdfPtPerMM, 1189 * pdfPtPerMM},
		{"a1", 594 * pdfPtPerMM, 841 * pdfPtPerMM},
		{"A2", 420 * pdfPtPerMM, 594 * pdfPtPerMM},
		{"a3", 297 * pdfPtPerMM, 420 * pdfPtPerMM},
		{"A4", 210 * pdfPtPerMM, 297 * pdfPtPerMM},
		{"a5", 148 * pdfPtPerMM, 210 * pdfPtPerMM},
		{"A6", 105 * pdfPtPerMM, 148 * pdfPtPerMM},
		{"Letter", 8.5 * 72, 11 * 72},
		{"LEGAL", 8.5 * 72, 14 * 72},
		{"tabloid", 11 * 72, 17 * 72},
		{"LeDgEr", 17 * 72, 11 * 72},
	}
	for _, f := range formats {
		for _, landscape := range []bool{false, true} {
			orientation, w, h := "portrait", f.w, f.h
			if landscape {
				orientation, w, h = "landscape", f.h, f.w
			}
			name := fmt.Sprintf("pdf.format=%s in %s is %.0f by %.0f points", f.spelling, orientation, w, h)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				q := "pdf=true&meta=false&force=true&pdf.format=" + f.spelling
				if landscape {
					q += "&pdf.landscape=true"
				}
				_, o := env.pdfRender(t, "/probe", q)
				d := pdfInspect(t, env.fetchStored(t, o))
				if d.pages != 1 {
					t.Errorf("%d pages, want 1", d.pages)
				}
				// Chromium lays pages out in whole CSS pixels (0.75 pt).
				if !pdfNear(d.width, w, 1.5) || !pdfNear(d.height, h, 1.5) {
					t.Errorf("page size %.2f x %.2f pt, want %.2f x %.2f", d.width, d.height, w, h)
				}
			})
		}
	}
	t.Run("no pdf.format is A4", func(t *testing.T) {
		t.Parallel()
		_, o := env.pdfRender(t, "/probe", "pdf&meta=false&force=true")
		d := pdfInspect(t, env.fetchStored(t, o))
		if !pdfNear(d.width, 595.3, 1.5) || !pdfNear(d.height, 841.9, 1.5) {
			t.Errorf("page size %.2f x %.2f pt, want A4, 595 x 842", d.width, d.height)
		}
	})
}

func testPDFLayout(t *testing.T, env *pdfEnv) {
	// The reference is the word printed at scale 1 without margins: every
	// other case must move it by its margins and resize it by its scale.
	_, o := env.pdfRender(t, "/probe", "pdf=true&meta=false&force=true&pdf.margin=0&pdf.scale=1")
	ref := pdfInspect(t, env.fetchStored(t, o)).word(t, "MARGINPROBE")
	refWidth := ref.xMax - ref.xMin
	if refWidth < 50 {
		t.Fatalf("the reference word is %.1f pt wide; a 20px monospace word of 11 letters is over 100", refWidth)
	}
	green := func(c color.RGBA) bool { return c.G > 200 && c.R < 60 && c.B < 60 }
	white := func(c color.RGBA) bool { return c.R > 230 && c.G > 230 && c.B > 230 }

	cases := []struct {
		name         string
		query        string
		w, h         float64 // page size in points
		left, top    float64 // margins in points
		scale        float64
		printedGreen bool
	}{
		{"the defaults are A4, 0.35cm margins, scale 0.6 and backgrounds", "", 595.3, 841.9, 0.35 * pdfPtPerCM, 0.35 * pdfPtPerCM, 0.6, true},
		{"pdf.margin=2cm moves the content 2cm in", "pdf.margin=2cm&pdf.scale=1", 595.3, 841.9, 2 * pdfPtPerCM, 2 * pdfPtPerCM, 1, true},
		{"pdf.margin=25.4mm is an inch", "pdf.margin=25.4mm&pdf.scale=1", 595.3, 841.9, 72, 72, 1, true},
		{"pdf.margin=0.5in is half an inch", "pdf.margin=0.5in&pdf.scale=1", 595.3, 841.9, 36, 36, 1, true},
		{"pdf.margin=96px is an inch", "pdf.margin=96px&pdf.scale=1", 595.3, 841.9, 72, 72, 1, true},
		{"pdf.margin.left and pdf.margin.top set one side each", "pdf.margin=0&pdf.margin.left=3cm&pdf.margin.top=1cm&pdf.scale=1", 595.3, 841.9, 3 * pdfPtPerCM, 1 * pdfPtPerCM, 1, true},
		{"pdf.margin.right and pdf.margin.bottom leave the top left corner alone", "pdf.margin=0&pdf.margin.right=5cm&pdf.margin.bottom=5cm&pdf.scale=1", 595.3, 841.9, 0, 0, 1, true},
		{"pdf.scale=0.5 halves the content", "pdf.margin=0&pdf.scale=0.5", 595.3, 841.9, 0, 0, 0.5, true},
		{"pdf.scale=2 doubles the content", "pdf.margin=0&pdf.scale=2", 595.3, 841.9, 0, 0, 2, true},
		{"pdf.scale=0.1 is the smallest scale", "pdf.margin=0&pdf.scale=0.1", 595.3, 841.9, 0, 0, 0.1, true},
		{"pdf.width and pdf.height give the paper size", "pdf.width=5in&pdf.height=7in&pdf.margin=0&pdf.scale=1", 360, 504, 0, 0, 1, true},
		{"pdf.width and pdf.height override pdf.format, in any unit", "pdf.format=A3&pdf.width=480px&pdf.height=20cm&pdf.margin=0&pdf.scale=1", 360, 20 * pdfPtPerCM, 0, 0, 1, true},
		{"pdf.printBackground=false prints no background", "pdf.printBackground=false", 595.3, 841.9, 0.35 * pdfPtPerCM, 0.35 * pdfPtPerCM, 0.6, false},
		{"every option combines in one request", "pdf.format=legal&pdf.landscape=true&pdf.margin=1cm&pdf.margin.left=2cm&pdf.scale=0.8&pdf.pageRanges=1&pdf.printBackground=false&mediaType=print",
			1008, 612, 2 * pdfPtPerCM, 1 * pdfPtPerCM, 0.8, false},
		{"every option combines with a paper size of its own, which landscape turns", "pdf.width=6in&pdf.height=4in&pdf.landscape=true&pdf.margin=0.5in&pdf.scale=1.5&pdf.pageRanges=1-&pdf.printBackground=true&mediaType=screen",
			288, 432, 36, 36, 1.5, true},
		{"Letter with 1cm margins at scale 1 is the usual report", "pdf.format=Letter&pdf.margin=1cm&pdf.scale=1", 612, 792, pdfPtPerCM, pdfPtPerCM, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := "pdf=true&meta=false&force=true"
			if c.query != "" {
				q += "&" + c.query
			}
			_, o := env.pdfRender(t, "/probe", q)
			d := pdfInspect(t, env.fetchStored(t, o))
			if d.pages != 1 {
				t.Errorf("%d pages, want 1", d.pages)
			}
			if !pdfNear(d.width, c.w, 1.5) || !pdfNear(d.height, c.h, 1.5) {
				t.Errorf("page size %.2f x %.2f pt, want %.2f x %.2f", d.width, d.height, c.w, c.h)
			}
			got := d.word(t, "MARGINPROBE")
			if width := got.xMax - got.xMin; !pdfNear(width/refWidth, c.scale, 0.03*c.scale+0.01) {
				t.Errorf("the word is %.1f pt wide, %.3f times its width at scale 1; want %.2f", width, width/refWidth, c.scale)
			}
			if want := c.left + ref.xMin*c.scale; !pdfNear(got.xMin, want, 1.5) {
				t.Errorf("the word starts %.1f pt from the left edge, want %.1f", got.xMin, want)
			}
			if want := c.top + ref.yMin*c.scale; !pdfNear(got.yMin, want, 1.5) {
				t.Errorf("the word starts %.1f pt from the top edge, want %.1f", got.yMin, want)
			}
			centre := d.centreColour(t)
			if c.printedGreen && !green(centre) {
				t.Errorf("the middle of the page is %v; the green background should be printed", centre)
			}
			if !c.printedGreen && !white(centre) {
				t.Errorf("the middle of the page is %v; with pdf.printBackground=false it should stay white", centre)
			}
		})
	}
}

func testPDFPageRanges(t *testing.T, env *pdfEnv) {
	cases := []struct {
		name   string
		ranges string
		want   []int // the sections printed, in order
	}{
		{"no pdf.pageRanges prints every page", "", []int{1, 2, 3, 4, 5}},
		{"a list of ranges and single pages prints exactly those", "2-3, 5", []int{2, 3, 5}},
		{"a single page prints one page", "4", []int{4}},
		{"an open-ended range runs to the last page", "4-", []int{4, 5}},
		{"a range open at the start runs from the first page", "-2", []int{1, 2}},
		// Chromium's rule: pages past the end are dropped as long as one
		// asked page exists; only ranges that miss the document entirely
		// are EPAGERANGE (below).
		{"a list partly past the end prints the pages that exist", "2, 7", []int{2}},
		{"a range partly past the end stops at the last page", "4-9", []int{4, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := "pdf=true&meta=false&force=true"
			if c.ranges != "" {
				q += "&pdf.pageRanges=" + url.QueryEscape(c.ranges)
			}
			_, o := env.pdfRender(t, "/sections", q)
			d := pdfInspect(t, env.fetchStored(t, o))
			var got []int
			for _, text := range d.text {
				n := 0
				for i := 1; i <= 5; i++ {
					if strings.Contains(text, fmt.Sprintf("SECTION-%d", i)) {
						n = i
					}
				}
				got = append(got, n)
			}
			if d.pages != len(c.want) || !slices.Equal(got, c.want) {
				t.Errorf("printed %d pages showing sections %v, want sections %v", d.pages, got, c.want)
			}
		})
	}
	for _, ranges := range []string{"9", "6-8", "6, 7"} {
		t.Run(fmt.Sprintf("pdf.pageRanges=%s outside a five-page document is EPAGERANGE", ranges), func(t *testing.T) {
			t.Parallel()
			a := env.app.Get(env.ps.URL+"/sections", "pdf=true&force=true&pdf.pageRanges="+url.QueryEscape(ranges))
			if a.HTTP != 400 || a.Status != "fail" || a.Code != "EPAGERANGE" {
				t.Fatalf("answered %d %s %s, want 400 fail EPAGERANGE: %s", a.HTTP, a.Status, a.Code, a.Raw)
			}
			if !strings.Contains(a.Message, "pdf.pageRanges") {
				t.Errorf("the message does not name pdf.pageRanges: %q", a.Message)
			}
		})
	}
}

func testPDFMedia(t *testing.T, env *pdfEnv) {
	cases := []struct {
		name      string
		query     string
		wantTitle string
		wantPDF   string // the paragraph the PDF shows; "" without PDF
	}{
		{"a PDF request renders with print media", "pdf=true", "Rendered for print", "PRINTMEDIA"},
		{"a PDF request with mediaType=screen renders with screen media", "pdf=true&mediaType=screen", "Rendered for screen", "SCREENMEDIA"},
		{"a PDF request with mediaType=print renders with print media", "pdf=true&mediaType=PRINT", "Rendered for print", "PRINTMEDIA"},
		{"a request without PDF renders with screen media", "", "Rendered for screen", ""},
		{"a request without PDF but with mediaType=print renders with print media", "mediaType=print", "Rendered for print", ""},
		{"the snake_case media_type is read too", "pdf=true&media_type=screen", "Rendered for screen", "SCREENMEDIA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := "force=true"
			if c.query != "" {
				q += "&" + c.query
			}
			a := env.app.Get(env.ps.URL+"/media", q)
			if a.HTTP != 200 {
				t.Fatalf("answered %d: %s", a.HTTP, a.Raw)
			}
			if got := a.Field("title"); got != c.wantTitle {
				t.Errorf("the title read from the page is %v, want %q", got, c.wantTitle)
			}
			if c.wantPDF == "" {
				if a.Has("pdf") {
					t.Errorf("data.pdf is present without pdf=true: %s", a.Raw)
				}
				return
			}
			var d struct{ PDF pdfObject }
			if err := json.Unmarshal(a.Data, &d); err != nil || d.PDF.URL == "" {
				t.Fatalf("no data.pdf: %s", a.Raw)
			}
			text := strings.Join(pdfInspect(t, env.fetchStored(t, d.PDF)).text, "\n")
			other := map[string]string{"PRINTMEDIA": "SCREENMEDIA", "SCREENMEDIA": "PRINTMEDIA"}[c.wantPDF]
			if !strings.Contains(text, c.wantPDF) || strings.Contains(text, other) {
				t.Errorf("the PDF reads %q; want %s and not %s, as the title says", strings.TrimSpace(text), c.wantPDF, other)
			}
		})
	}
}

// pdfAnswerHeaders are the headers docs/api.md#response-headers puts on
// every answer, embed
// bodies included.
var pdfAnswerHeaders = []string{
	"x-request-id", "x-response-time", "x-cache-status", "x-cache-ttl", "x-fetch-mode", "x-pricing-plan",
	"x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset", "cache-control",
}

// pdfRawGet calls the API without following redirects.
func pdfRawGet(t *testing.T, method, u string) (*http.Response, []byte) {
	t.Helper()
	client := &http.Client{
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", u, err)
	}
	return resp, b
}

func testPDFEmbed(t *testing.T, env *pdfEnv) {
	// The query of the documented curl example, as a caller types it.
	target := env.ps.URL + "/probe?embed-test=1"
	query := "url=" + url.QueryEscape(target) + "&pdf=true&pdf.format=Letter&pdf.margin=1cm&pdf.scale=1&embed=pdf.url"

	resp, body := pdfRawGet(t, http.MethodGet, env.app.URL()+"/?"+query+"&force=true")
	if resp.StatusCode != 200 {
		t.Fatalf("embed=pdf.url answered %d: %.300s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("content-type"); ct != "application/pdf" {
		t.Errorf("content-type = %q, want application/pdf", ct)
	}
	if cl := resp.Header.Get("content-length"); cl != strconv.Itoa(len(body)) {
		t.Errorf("content-length = %q, but the body has %d bytes", cl, len(body))
	}
	if cd := resp.Header.Get("content-disposition"); !regexp.MustCompile(`^inline; filename="?[^"/]+\.pdf"?$`).MatchString(cd) {
		t.Errorf("content-disposition = %q, want inline; filename=….pdf", cd)
	}
	if resp.Uncompressed || resp.Header.Get("content-encoding") != "" {
		t.Errorf("the PDF is sent compressed; it must arrive as the stored bytes, which content-length counts")
	}
	for _, h := range pdfAnswerHeaders {
		if resp.Header.Get(h) == "" {
			t.Errorf("the embedded PDF lacks the %s header", h)
		}
	}
	if got := resp.Header.Get("x-cache-status"); got != "BYPASS" {
		t.Errorf("x-cache-status = %q with force=true, want BYPASS", got)
	}
	d := pdfInspect(t, body)
	if !pdfNear(d.width, 612, 1.5) || !pdfNear(d.height, 792, 1.5) {
		t.Errorf("the embedded PDF is %.2f x %.2f pt, want Letter, 612 x 792", d.width, d.height)
	}
	if w := d.word(t, "MARGINPROBE"); !pdfNear(w.xMin, pdfPtPerCM, 1.5) {
		t.Errorf("the word starts %.1f pt from the left edge, want the 1cm margin, %.1f", w.xMin, pdfPtPerCM)
	}

	// The same request without embed is a cache hit whose data.pdf.url
	// holds the very bytes that were embedded.
	a := env.app.Do(strings.TrimSuffix(query, "&embed=pdf.url"))
	if a.HTTP != 200 || a.Header.Get("x-cache-status") != "HIT" {
		t.Fatalf("the same request without embed answered %d, x-cache-status %q: %s", a.HTTP, a.Header.Get("x-cache-status"), a.Raw)
	}
	var o struct{ PDF pdfObject }
	if err := json.Unmarshal(a.Data, &o); err != nil {
		t.Fatal(err)
	}
	if stored := env.fetchStored(t, o.PDF); !bytes.Equal(stored, body) {
		t.Errorf("data.pdf.url holds %d bytes that differ from the %d embedded ones", len(stored), len(body))
	}

	// A cache hit embeds too, and HEAD describes the body without sending it.
	resp, hit := pdfRawGet(t, http.MethodGet, env.app.URL()+"/?"+query)
	if resp.StatusCode != 200 || resp.Header.Get("x-cache-status") != "HIT" || !bytes.Equal(hit, body) {
		t.Errorf("embed=pdf.url from the cache answered %d, x-cache-status %q, %d bytes; want 200 HIT with the same %d bytes",
			resp.StatusCode, resp.Header.Get("x-cache-status"), len(hit), len(body))
	}
	resp, head := pdfRawGet(t, http.MethodHead, env.app.URL()+"/?"+query)
	if resp.StatusCode != 200 || len(head) != 0 || resp.Header.Get("content-length") != strconv.Itoa(len(body)) ||
		resp.Header.Get("content-type") != "application/pdf" {
		t.Errorf("HEAD with embed=pdf.url answered %d, %d body bytes, content-length %q, content-type %q; want 200, none, %d, application/pdf",
			resp.StatusCode, len(head), resp.Header.Get("content-length"), resp.Header.Get("content-type"), len(body))
	}

	t.Run("embed=pdf.url without pdf is EINVALQUERY naming embed", func(t *testing.T) {
		a := env.app.Get(env.ps.URL+"/probe", "embed=pdf.url")
		pdfCheckQueryError(t, a, "embed", "pdf=true")
	})
}

func testPDFEmbedAssets(t *testing.T, env *pdfEnv) {
	cases := []struct {
		name, path, query string
		want              []byte // nil: an error naming embed
	}{
		{"embed=image.url answers with the page's image", "/with-images", "embed=image.url", env.png},
		{"embed=logo.url answers with the page's icon", "/with-images", "embed=logo.url", env.icon},
		{"embed=image.url with a PDF still answers with the image", "/with-images", "embed=image.url&pdf=true", env.png},
		{"embed=image.url of a page without an image is EINVALQUERY", "/plain", "embed=image.url", nil},
		{"embed=image.url with the image field switched off is EINVALQUERY", "/with-images", "embed=image.url&meta.image=false", nil},
		{"embed=logo.url with metadata off is EINVALQUERY", "/with-images", "embed=logo.url&meta=false&pdf=true", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u := env.app.URL() + "/?url=" + url.QueryEscape(env.ps.URL+c.path) + "&force=true&" + c.query
			resp, body := pdfRawGet(t, http.MethodGet, u)
			for _, h := range []string{"x-request-id", "x-response-time", "x-pricing-plan"} {
				if resp.Header.Get(h) == "" {
					t.Errorf("the answer lacks the %s header", h)
				}
			}
			if c.want == nil {
				var a e2e.Answer
				a.HTTP, a.Header, a.Raw = resp.StatusCode, resp.Header, body
				_ = json.Unmarshal(body, &a)
				pdfCheckQueryError(t, a, "embed", "")
				return
			}
			if resp.StatusCode >= 300 && resp.StatusCode < 400 {
				loc := resp.Header.Get("location")
				if !strings.HasPrefix(loc, env.ps.URL+"/") {
					t.Fatalf("redirected to %q, want the asset on %s", loc, env.ps.URL)
				}
				resp, body = pdfRawGet(t, http.MethodGet, loc)
			}
			if resp.StatusCode != 200 || !bytes.Equal(body, c.want) {
				t.Fatalf("answered %d with %d bytes (%s), want the %d bytes of the asset", resp.StatusCode, len(body), resp.Header.Get("content-type"), len(c.want))
			}
			if ct := resp.Header.Get("content-type"); ct != "image/png" {
				t.Errorf("content-type = %q, want image/png", ct)
			}
		})
	}
}

// pdfCheckQueryError checks a 400 EINVALQUERY that names param and, when
// accepted is not empty, says what is accepted.
func pdfCheckQueryError(t *testing.T, a e2e.Answer, param, accepted string) {
	t.Helper()
	if a.HTTP != 400 || a.Status != "fail" || a.Code != "EINVALQUERY" {
		t.Fatalf("answered %d %s %s, want 400 fail EINVALQUERY: %s", a.HTTP, a.Status, a.Code, a.Raw)
	}
	if !strings.Contains(a.Message, "`"+param) {
		t.Errorf("the message does not name `%s`: %q", param, a.Message)
	}
	if accepted != "" && !strings.Contains(a.Message, accepted) {
		t.Errorf("the message does not say what is accepted (%s): %q", accepted, a.Message)
	}
	if a.Header.Get("x-request-id") == "" {
		t.Errorf("the error lacks x-request-id")
	}
}

func testPDFQueryErrors(t *testing.T, env *pdfEnv) {
	cases := []struct {
		name, query, param, accepted string
	}{
		{"an unknown paper format", "pdf.format=B5", "pdf.format", "Letter, Legal, Tabloid, Ledger, A0"},
		{"a margin in furlongs", "pdf.margin=2furlongs", "pdf.margin", "cm"},
		{"a negative side margin", "pdf.margin.top=-1cm", "pdf.margin.top", "negative"},
		{"margins wider than the paper", "pdf.format=A6&pdf.margin=3in", "pdf.margin", "smaller"},
		{"a scale above 2", "pdf.scale=3", "pdf.scale", "0.1 to 2"},
		{"a scale below 0.1", "pdf.scale=0.05", "pdf.scale", "0.1 to 2"},
		{"a scale that is not a number", "pdf.scale=big", "pdf.scale", "0.1 to 2"},
		{"a landscape that is not a boolean", "pdf.landscape=sideways", "pdf.landscape", "true"},
		{"a printBackground that is not a boolean", "pdf.printBackground=maybe", "pdf.printBackground", "true"},
		{"page ranges that are not numbers", "pdf.pageRanges=two-three", "pdf.pageRanges", "1-5"},
		{"a range that ends before it starts", "pdf.pageRanges=5-2", "pdf.pageRanges", "1-5"},
		{"a zero paper width", "pdf.width=0", "pdf.width", "0.1in"},
		{"a paper height that is not a length", "pdf.height=tall", "pdf.height", "mm"},
		{"a media type other than screen or print", "pdf=true&mediaType=tv", "mediaType", "`screen` or `print`"},
		{"pdf=false beside a PDF option", "pdf=false&pdf.scale=1", "pdf", "pdf.scale"},
		{"an unknown PDF option", "pdf.colour=red", "pdf.colour", "pdf.format"},
		{"embed of a field that does not exist", "pdf=true&embed=title.url", "embed", "pdf.url"},
	}
	for _, c := range cases {
		t.Run(c.name+" names "+c.param, func(t *testing.T) {
			t.Parallel()
			a := env.app.Get(env.ps.URL+"/probe", c.query)
			pdfCheckQueryError(t, a, c.param, c.accepted)
		})
	}
}

// pdfHeapPeak samples the heap while f runs and returns how far it grew above
// where it started. The garbage collector runs at a tenth of its usual
// target meanwhile, so the figure is what is live, not what awaits
// collection.
func pdfHeapPeak(f func()) (base, peak uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// Two collections empty the sync.Pools, so buffers that are reused
	// between uploads count as growth rather than hiding in the baseline.
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak = ms.HeapAlloc, ms.HeapAlloc
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	}()
	f()
	close(stop)
	<-done
	return base, peak
}

func testPDFLongDocument(t *testing.T, env *pdfEnv, path string) pdfObject {
	var o pdfObject
	var took time.Duration
	base, peak := pdfHeapPeak(func() {
		start := time.Now()
		_, o = env.pdfRender(t, path, pdfLongQuery)
		took = time.Since(start)
	})
	grew := int64(peak) - int64(base)
	t.Logf("a %d-byte PDF was printed and stored in %s in %s; the heap grew by %d bytes at most (from %d)",
		o.Size, env.kind(), took.Round(time.Millisecond), grew, base)
	if o.Size < 20<<20 {
		t.Fatalf("the long document is only %d bytes; the test needs one far larger than what a stream holds at once", o.Size)
	}
	// A streamed upload holds one IO.read chunk and, for S3, one 5 MiB
	// part; a document held whole would take all of it and more.
	if grew > o.Size/2 {
		t.Errorf("the heap grew by %d bytes while a %d-byte PDF went to %s; a streamed upload holds a few MB at most, not half the document",
			grew, o.Size, env.kind())
	}
	d := pdfInspect(t, env.fetchStored(t, o))
	if d.pages < pdfLongPages {
		t.Errorf("the long document has %d pages, want at least %d", d.pages, pdfLongPages)
	}
	last := d.text[len(d.text)-1]
	if !strings.Contains(last, fmt.Sprintf("Page %d", pdfLongPages)) {
		t.Errorf("the last page does not carry the last heading, Page %d: %.200q", pdfLongPages, last)
	}
	if !strings.HasSuffix(o.SizePretty, " MB") {
		t.Errorf("size_pretty = %q for %d bytes, want MB", o.SizePretty, o.Size)
	}
	return o
}

// storedPDFs lists the public PDF objects in the bucket, with their sizes.
func (env *pdfEnv) storedPDFs(t *testing.T) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[string]int64{}
	for obj := range env.mc.ListObjects(ctx, pdfBucket, minio.ListObjectsOptions{Prefix: "files/", Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("listing the bucket: %v", obj.Err)
		}
		out[obj.Key] = obj.Size
	}
	return out
}

// checkNothingNew fails for any object that is not as it was in before.
func (env *pdfEnv) checkNothingNew(t *testing.T, before map[string]int64) {
	t.Helper()
	for key, size := range env.storedPDFs(t) {
		if was, ok := before[key]; !ok || was != size {
			t.Errorf("the failed request left %s (%d bytes) in the bucket", key, size)
		}
	}
}

// unfinishedUploads lists the multipart uploads of key that were neither
// completed nor aborted.
func (env *pdfEnv) unfinishedUploads(t *testing.T, key string) []minio.ObjectMultipartInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []minio.ObjectMultipartInfo
	for u := range env.mc.ListIncompleteUploads(ctx, pdfBucket, key, false) {
		if u.Err != nil {
			t.Fatalf("listing unfinished uploads: %v", u.Err)
		}
		out = append(out, u)
	}
	return out
}

// abortLeftovers aborts uploads the service left behind, so that later
// cases start clean, and says whether MinIO itself could abort them.
func (env *pdfEnv) abortLeftovers(t *testing.T, left []minio.ObjectMultipartInfo) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	for _, u := range left {
		err := minio.Core{Client: env.mc}.AbortMultipartUpload(ctx, pdfBucket, u.Key, u.UploadID)
		outcome := "the test aborted it"
		if err != nil {
			outcome = "the test could not abort it either: " + err.Error()
		}
		out = append(out, fmt.Sprintf("%s (upload %s, started %s; %s)", u.Key, u.UploadID, u.Initiated.Format(time.RFC3339Nano), outcome))
	}
	return strings.Join(out, "; ")
}

// pdfCheckStorageError checks the answer to a request whose upload failed.
func pdfCheckStorageError(t *testing.T, a e2e.Answer) {
	t.Helper()
	if a.HTTP < 500 || a.Status != "error" || a.Code != "ESTORAGE" {
		t.Fatalf("with storage down the answer is %d %s %s, want a 503 error ESTORAGE: %s", a.HTTP, a.Status, a.Code, a.Raw)
	}
	if !strings.Contains(strings.ToLower(a.Message), "storage") {
		t.Errorf("the message does not say that storage failed: %q", a.Message)
	}
	if a.Header.Get("x-request-id") == "" {
		t.Errorf("the error lacks x-request-id")
	}
	if a.Has("pdf") {
		t.Errorf("the error carries data.pdf: %s", a.Raw)
	}
}

func (env *pdfEnv) readyz(t *testing.T) int {
	t.Helper()
	resp, _ := pdfRawGet(t, http.MethodGet, env.app.URL()+"/readyz")
	return resp.StatusCode
}

func testPDFStorageDownBeforeUpload(t *testing.T, env *pdfEnv) {
	pages0, contexts0 := env.app.Settled(-1, -1)
	const path, query = "/probe?outage=before", "pdf=true&force=true"
	key := pdfObjectKey(t, env, path, query)
	// An answer cached before the outage whose PDF is embedded: its body
	// comes from the bucket, so it cannot be served while MinIO is down.
	cached := env.app.URL() + "/?url=" + url.QueryEscape(env.ps.URL+"/probe?outage=cached") + "&pdf=true&embed=pdf.url"
	resp, pdf := pdfRawGet(t, http.MethodGet, cached)
	if resp.StatusCode != 200 {
		t.Fatalf("embed=pdf.url answered %d before the outage: %.300s", resp.StatusCode, pdf)
	}
	before := env.storedPDFs(t)

	env.minio.Stop(t)
	a := env.app.Get(env.ps.URL+path, query)
	pdfCheckStorageError(t, a)

	resp, body := pdfRawGet(t, http.MethodGet, cached)
	var embedded e2e.Answer
	embedded.HTTP, embedded.Header, embedded.Raw = resp.StatusCode, resp.Header, body
	_ = json.Unmarshal(body, &embedded)
	if resp.Header.Get("x-cache-status") != "HIT" {
		t.Errorf("the cached answer was not a cache hit during the outage (x-cache-status %q)", resp.Header.Get("x-cache-status"))
	}
	pdfCheckStorageError(t, embedded)
	// Readiness means "can answer": metadata still can, so the replica
	// stays in its Service and only says storage is away.
	if resp, body := pdfRawGet(t, http.MethodGet, env.app.URL()+"/readyz"); resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(body), `"status":"degraded"`) || strings.Contains(string(body), `"storage":"ok"`) {
		t.Errorf("/readyz answered %d %s while MinIO is down, want 200 saying storage is degraded", resp.StatusCode, body)
	}
	if m := env.app.Get(env.ps.URL+"/probe?outage=metadata", "force=true"); m.HTTP != http.StatusOK {
		t.Errorf("a metadata request answered %d while MinIO is down, want 200: %.300s", m.HTTP, m.Raw)
	}
	if pages, contexts := env.app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
		t.Errorf("after the failed upload the browser has %d pages and %d contexts, it had %d and %d: the lease was not released",
			pages, contexts, pages0, contexts0)
	}

	env.minio.Start(t)
	if code := env.readyz(t); code != http.StatusOK {
		t.Errorf("/readyz answered %d after MinIO came back, want 200", code)
	}
	env.checkNothingNew(t, before)
	if left := env.unfinishedUploads(t, key); len(left) > 0 {
		t.Errorf("unfinished uploads are left in the bucket: %s", env.abortLeftovers(t, left))
	}
	_, o := env.pdfRender(t, path, query)
	if !strings.HasSuffix(o.URL, "/"+key) {
		t.Errorf("the document is stored at %s, not under the key %s of the failed request", o.URL, key)
	}
	pdfInspect(t, env.fetchStored(t, o))
	if resp, body := pdfRawGet(t, http.MethodGet, cached); resp.StatusCode != 200 || !bytes.Equal(body, pdf) {
		t.Errorf("once MinIO is back, the cached embed answered %d with %d bytes, want 200 with the %d bytes it had before", resp.StatusCode, len(body), len(pdf))
	}
}

func testPDFStorageDiesMidUpload(t *testing.T, env *pdfEnv) {
	pages0, contexts0 := env.app.Settled(-1, -1)
	before := env.storedPDFs(t)
	key := pdfObjectKey(t, env, pdfMidUploadPath, pdfLongQuery)

	// The long document takes several parts; MinIO is stopped once the
	// first of them is stored, so data is half written and the service
	// knows the upload it has to abort. (Stopping it the moment the upload
	// appears can lose the reply that names the upload, which can then not
	// be aborted at all; that narrower case is left out.)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	core := minio.Core{Client: env.mc}
	var stopped sync.WaitGroup
	stopped.Add(1)
	var partsSeen int
	go func() {
		defer stopped.Done()
		for ctx.Err() == nil {
			lctx, lcancel := context.WithTimeout(ctx, time.Second)
			for u := range env.mc.ListIncompleteUploads(lctx, pdfBucket, key, false) {
				if u.Err != nil || u.Key != key {
					continue
				}
				if parts, err := core.ListObjectParts(lctx, pdfBucket, key, u.UploadID, 0, 1000); err == nil {
					partsSeen = max(partsSeen, len(parts.ObjectParts))
				}
			}
			lcancel()
			if partsSeen > 0 {
				env.minio.Stop(t)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	a := env.app.Get(env.ps.URL+pdfMidUploadPath, pdfLongQuery)
	cancel()
	stopped.Wait()
	if partsSeen == 0 {
		t.Fatalf("no stored part was seen during the request, so MinIO was never stopped mid-upload; the answer was %d: %.300s", a.HTTP, a.Raw)
	}
	pdfCheckStorageError(t, a)
	if pages, contexts := env.app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
		t.Errorf("after the failed upload the browser has %d pages and %d contexts, it had %d and %d: the lease was not released",
			pages, contexts, pages0, contexts0)
	}

	env.minio.Start(t)
	// Readiness checks are what finish the clean-up of uploads that could
	// not be aborted while the endpoint was down; an orchestrator's probe
	// calls /readyz every few seconds, so the test does too, for a while.
	var left []minio.ObjectMultipartInfo
	for probes, deadline := 1, time.Now().Add(20*time.Second); ; probes++ {
		code := env.readyz(t)
		left = env.unfinishedUploads(t, key)
		if code == http.StatusOK && len(left) == 0 || time.Now().After(deadline) {
			if code != http.StatusOK {
				t.Errorf("/readyz answered %d 20s after MinIO came back, want 200", code)
			}
			t.Logf("the bucket was checked after %d calls of /readyz", probes)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	env.checkNothingNew(t, before)
	if len(left) > 0 {
		t.Errorf("20s after MinIO came back, the parts of the failed upload are still in the bucket: %s", env.abortLeftovers(t, left))
	}
}
