package output

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// screenshots is where TestHTMLInBrowser copies its screenshots:
// go test -run TestHTMLInBrowser ./cmd/seccompbench/internal/output/ -screenshots ../../../../docs/img
// writes docs/img/report-{run,compare,estimate,report}.png.
var screenshots = flag.String("screenshots", "", "copy the browser screenshots of the HTML reports to `DIR`")

// root is the repository root, from this package's directory.
var root = filepath.Join("..", "..", "..", "..")

// chromiumPath finds Debian's chromium for TestHTMLInBrowser. The test
// runs when SECCOMPBENCH_BROWSER=1 or CI is set (.ci/run installs
// chromium), and then a missing chromium fails it; otherwise it is
// skipped, so that `go test ./...` needs no browser.
func chromiumPath(t *testing.T) string {
	t.Helper()
	required := os.Getenv("SECCOMPBENCH_BROWSER") == "1" || os.Getenv("CI") != ""
	if !required {
		t.Skip("set SECCOMPBENCH_BROWSER=1 to render the HTML reports in headless chromium")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found; install Debian's chromium (apt-get install chromium), as .ci/run does")
	return ""
}

// browserPage is one HTML report of the fixtures and the figures its
// rendered text must show.
type browserPage struct {
	name string
	page []byte
	want []string
	// defeatOnly: the chart has only uncached (vermillion) marks.
	defeatOnly bool
}

// fixturePages renders the four HTML reports from committed results:
// run and compare from docs/examples, report from docs/examples/fleet,
// estimate from report/testdata.
func fixturePages(t *testing.T) []browserPage {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	doc := func(p string) *document.Document {
		d, err := report.ReadJSON(bytes.NewReader(read(p)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return d
	}
	entry := func(p string) document.FleetEntry {
		e, err := report.ReadFleetEntry(filepath.Base(p), read(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return e
	}
	var pages []browserPage
	add := func(name string, want []string, write func(io.Writer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pages = append(pages, browserPage{name: name, page: b.Bytes(), want: want})
	}

	run := doc("docs/examples/run.json")
	var runWant []string
	for _, f := range run.Fits {
		runWant = append(runWant, fmt.Sprintf("%.2f", report.Num(f.PerFilterNs)), fmt.Sprintf("[%.2f, %.2f]", report.Num(f.PerFilterCILowNs), report.Num(f.PerFilterCIHighNs)))
	}
	add("run", append(runWant, run.Environment.Kernel, "Syscall cost in ns per op"), func(w io.Writer) error { return WriteRunHTML(w, io.Discard, run) })

	minimal := doc("docs/examples/minimal.json")
	c, err := report.Compare([]document.NamedDocument{{Name: "run.json", Doc: run}, {Name: "minimal.json", Doc: minimal}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var cmpWant []string
	for _, f := range c.Fits {
		cmpWant = append(cmpWant, fmt.Sprintf("%+.2f", report.Num(f.DeltaNs)))
	}
	entries := []document.FleetEntry{entry("docs/examples/run.json"), entry("docs/examples/minimal.json")}
	add("compare", append(cmpWant, "run.json vs minimal.json", "Per-filter cost in ns per op"), func(w io.Writer) error { return WriteComparisonHTML(w, c, entries) })

	var e document.Estimate
	if err := json.Unmarshal(read("report/testdata/estimate.json"), &e); err != nil {
		t.Fatal(err)
	}
	add("estimate", []string{"+24.0 ms [0, 84.5 ms]", "3153.7", "Predicted time the filters add per call"}, func(w io.Writer) error { return WriteEstimateHTML(w, &e, 15) })
	pages[len(pages)-1].defeatOnly = true // --cache defeat: nothing cached

	var nodes []document.FleetEntry
	for _, n := range []string{"node-1.json", "node-2.json", "node-3.json"} {
		nodes = append(nodes, entry("docs/examples/fleet/"+n))
	}
	fl, err := report.BuildFleet(nodes)
	if err != nil {
		t.Fatal(err)
	}
	var flWant []string
	for _, g := range fl.Groups {
		for _, r := range g.Rows {
			flWant = append(flWant, fmt.Sprintf("%.2f", report.Num(r.PerFilterNs)))
		}
	}
	add("report", append(flWant, "seccompbench report: 3 results", "Per-filter cost in ns per op"), func(w io.Writer) error { return WriteFleetHTML(w, fl) })
	return pages
}

// TestHTMLInBrowser opens the four HTML reports of the fixtures in
// headless chromium: the DOM it built must hold the headline figures
// (so the page parsed and nothing hid the text), and a 1200×1600
// screenshot must show a page: mostly white, text, and the charts' two
// variant colours.
func TestHTMLInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	dir := t.TempDir()
	for _, p := range fixturePages(t) {
		t.Run(p.name, func(t *testing.T) {
			file := filepath.Join(dir, p.name+".html")
			if err := os.WriteFile(file, p.page, 0o644); err != nil {
				t.Fatal(err)
			}
			dom := browse(t, chromium, dir, "--dump-dom", "file://"+file)
			text := domText(t, dom)
			for _, w := range p.want {
				if !strings.Contains(text, w) {
					t.Errorf("rendered page lacks %q", w)
				}
			}
			shot := filepath.Join(dir, p.name+".png")
			browse(t, chromium, dir, "--hide-scrollbars", "--window-size=1200,1600", "--screenshot="+shot, "file://"+file)
			checkScreenshot(t, shot, p.defeatOnly)
			if *screenshots != "" {
				if err := shrinkPNG(shot, filepath.Join(*screenshots, "report-"+p.name+".png")); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// browse runs headless chromium with args and returns its standard
// output; the profile lives in dir.
func browse(t *testing.T, chromium, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, chromium, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// domText is the text of the DOM chromium dumped, without style sheets.
func domText(t *testing.T, dom []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(dom))
	if err != nil {
		t.Fatalf("parse dumped DOM: %v", err)
	}
	var b strings.Builder
	for n := range doc.Descendants() {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "style") {
			b.WriteString(n.Data)
		}
	}
	if b.Len() == 0 {
		t.Fatalf("chromium dumped no text:\n%s", dom)
	}
	return b.String()
}

// checkScreenshot fails the test unless the PNG at path is a rendered
// page: 1200 px wide, at least 1 % and at most 60 % of its pixels not
// white, more than 50 colours (anti-aliased text), and pixels near the
// defeated vermillion and, unless defeatOnly, the cached blue of the
// charts (the page's own CSS uses neither).
func checkScreenshot(t *testing.T, path string, defeatOnly bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	bnd := img.Bounds()
	if bnd.Dx() != 1200 {
		t.Errorf("screenshot is %d px wide, want 1200", bnd.Dx())
	}
	colours := map[[3]uint32]bool{}
	var ink, blue, vermillion int
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			colours[[3]uint32{r, g, b}] = true
			if r < 0xF0 || g < 0xF0 || b < 0xF0 {
				ink++
			}
			if near(r, g, b, 0x00, 0x72, 0xB2) {
				blue++
			}
			if near(r, g, b, 0xD5, 0x5E, 0x00) {
				vermillion++
			}
		}
	}
	share := float64(ink) / float64(bnd.Dx()*bnd.Dy())
	if share < 0.01 || share > 0.6 {
		t.Errorf("%.1f %% of the screenshot is not white: blank or unstyled", 100*share)
	}
	if len(colours) <= 50 {
		t.Errorf("screenshot has %d colours: no text rendered", len(colours))
	}
	if (blue < 20 && !defeatOnly) || vermillion < 20 {
		t.Errorf("screenshot has %d blue and %d vermillion pixels: the chart did not render in its colours", blue, vermillion)
	}
}

// near reports whether r, g, b is within 24 of R, G, B in each channel.
func near(r, g, b, R, G, B uint32) bool {
	d := func(a, b uint32) bool { return a+24 >= b && b+24 >= a }
	return d(r, R) && d(g, G) && d(b, B)
}

// maxDocPNG is the size docs/img keeps a screenshot under, in bytes.
const maxDocPNG = 300_000

// shrinkPNG copies the screenshot src to dst in 256 colours (paletted),
// compressed best; when that is over maxDocPNG, at half size (each pixel
// the mean of four).
func shrinkPNG(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return err
	}
	enc := &png.Encoder{CompressionLevel: png.BestCompression}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, paletted(img)); err != nil {
		return err
	}
	if buf.Len() > maxDocPNG {
		buf.Reset()
		if err := enc.Encode(&buf, halve(img)); err != nil {
			return err
		}
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// halve scales img to half its width and height, each pixel the mean of
// four.
func halve(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			var sr, sg, sb uint32
			for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				r, g, bl, _ := img.At(b.Min.X+2*x+d[0], b.Min.Y+2*y+d[1]).RGBA()
				sr, sg, sb = sr+r>>8, sg+g>>8, sb+bl>>8
			}
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(sr/4), uint8(sg/4), uint8(sb/4), 0xFF
		}
	}
	return out
}

// paletted maps img to its 256 most frequent colours, each pixel to the
// nearest of them: a screenshot is mostly white, greys and the charts'
// few colours, so text stays sharp at a fraction of the bytes.
func paletted(img image.Image) *image.Paletted {
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colours := make([]color.RGBA, 0, len(count))
	for c := range count {
		colours = append(colours, c)
	}
	slices.SortFunc(colours, func(a, b color.RGBA) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return int(a.R) - int(b.R) + 256*(int(a.G)-int(b.G)) + 65536*(int(a.B)-int(b.B))
	})
	var pal color.Palette
	for _, c := range colours[:min(256, len(colours))] {
		pal = append(pal, c)
	}
	index := map[color.RGBA]uint8{}
	out := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x-b.Min.X, y-b.Min.Y, i)
		}
	}
	return out
}

// TestHTMLPages checks the four HTML reports without a browser: each
// parses, shows its chart inline (an <svg> element after the tables,
// with the variants' colours), embeds the charts' font, and its text
// has the headline figures.
func TestHTMLPages(t *testing.T) {
	for _, p := range fixturePages(t) {
		t.Run(p.name, func(t *testing.T) {
			doc, err := html.Parse(bytes.NewReader(p.page))
			if err != nil {
				t.Fatal(err)
			}
			svgs := 0
			for n := range doc.Descendants() {
				if n.Type == html.ElementNode && n.Data == "svg" {
					svgs++
				}
			}
			if svgs != 1 {
				t.Errorf("%d inline <svg> charts, want 1", svgs)
			}
			if !bytes.Contains(p.page, []byte(`@font-face { font-family: "Liberation Sans"`)) {
				t.Error("the charts' font is not embedded")
			}
			if !bytes.Contains(p.page, []byte("#D55E00")) || (!p.defeatOnly && !bytes.Contains(p.page, []byte("#0072B2"))) {
				t.Error("the chart lacks the variants' colours")
			}
			text := domText(t, p.page)
			for _, w := range p.want {
				if !strings.Contains(text, w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}
}
