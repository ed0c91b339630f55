package chart_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// substituteWidth is how much wider than Liberation Sans a viewer's
// fallback font may set the same text. An SVG names Liberation Sans, which
// many machines lack: Chromium on Linux then uses DejaVu Sans, measured
// 17% wider on "total tok/s" at 9 px. Positions in the SVG are absolute
// and text grows rightwards from its x, so layout must leave that room.
const substituteWidth = 1.2

// minGapEm is the least space, in ems of the text's size, between a text
// and what follows it on its line, so two texts never read as one
// ("total tok/s0").
const minGapEm = 0.2

// svgBox is a rectangle in SVG user units, y down.
type svgBox struct{ x0, y0, x1, y1 float64 }

func (a svgBox) overlaps(b svgBox) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// svgText is one <text> as a viewer with a wider font would set it.
type svgText struct {
	s   string
	box svgBox  // with the gap that must follow it
	end float64 // right end of the glyphs
}

// svgShape is a filled or stroked path made of straight segments.
type svgShape struct {
	box    svgBox
	filled bool
}

var (
	numberRe   = regexp.MustCompile(`-?[0-9.]+(?:e-?[0-9]+)?`)
	fontSizeRe = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// layoutOf reads the texts and straight-edged paths of an SVG written by
// vgsvg, whose drawing is flipped (y up) inside a group that undoes it.
func layoutOf(t *testing.T, svg []byte) (texts []svgText, shapes []svgShape, width, height float64) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var groups []bool // whether each open <g> rotates
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if end, ok := tok.(xml.EndElement); ok && end.Name.Local == "g" {
			groups = groups[:len(groups)-1]
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch el.Name.Local {
		case "svg":
			vb := strings.Fields(attr["viewBox"])
			width, _ = strconv.ParseFloat(vb[2], 64)
			height, _ = strconv.ParseFloat(vb[3], 64)
		case "g":
			groups = append(groups, strings.Contains(attr["transform"], "rotate"))
		case "text":
			var body string
			if err := dec.DecodeElement(&body, &el); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(groups, true) {
				continue // the rotated y-axis title stands alone
			}
			x, _ := strconv.ParseFloat(attr["x"], 64)
			y, _ := strconv.ParseFloat(attr["y"], 64)
			m := fontSizeRe.FindStringSubmatch(attr["style"])
			size, _ := strconv.ParseFloat(m[1], 64)
			f := font.Font{Typeface: "Liberation", Variant: "Sans"}
			if strings.Contains(attr["style"], "font-weight:bold") {
				f.Weight = xfont.WeightBold
			}
			w, _, _ := plot.DefaultTextHandler.Box(body, font.From(f, font.Length(size)))
			base := height + y // the group flips y: baseline on screen
			texts = append(texts, svgText{s: body, box: svgBox{
				x0: x, x1: x + float64(w)*substituteWidth + minGapEm*size,
				y0: base - 0.72*size, y1: base + 0.2*size,
			}, end: x + float64(w)*substituteWidth})
		case "path":
			d := attr["d"]
			if strings.ContainsAny(d, "ACQSTachqst") {
				continue // markers: round, and never next to text
			}
			nums := numberRe.FindAllString(d, -1)
			b := svgBox{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for i := 0; i+1 < len(nums); i += 2 {
				x, _ := strconv.ParseFloat(nums[i], 64)
				y, _ := strconv.ParseFloat(nums[i+1], 64)
				y = height - y
				b = svgBox{math.Min(b.x0, x), math.Min(b.y0, y), math.Max(b.x1, x), math.Max(b.y1, y)}
			}
			if len(nums) >= 4 {
				shapes = append(shapes, svgShape{box: b, filled: strings.Contains(attr["style"], "fill:#")})
			}
		}
	}
	return texts, shapes, width, height
}

// TestChartTextClearWithSubstituteFont checks that no text of a chart runs
// into another text, a line or the edge of a filled shape when a viewer
// sets it in a font up to substituteWidth wider than Liberation Sans, and
// that every text stays on the canvas. RIGBENCH_CHART_DIR=DIR keeps the
// SVG and PNG of every case there, to look at them.
func TestChartTextClearWithSubstituteFont(t *testing.T) {
	ref := referenceRun(t)
	variant := variantRun(t, ref, 1.3)
	keep := os.Getenv("RIGBENCH_CHART_DIR")
	type tc struct {
		kind chart.Kind
		runs []*rundoc.Run
		w, h int
		name string
	}
	var cases []tc
	for _, size := range [][2]int{{800, 480}, {640, 400}, {1200, 700}} {
		for _, k := range chart.Kinds() {
			runs := []*rundoc.Run{ref}
			if k == chart.Energy {
				runs = []*rundoc.Run{energyRun()}
			}
			cases = append(cases,
				tc{k, runs, size[0], size[1], fmt.Sprintf("%s_%dx%d", k, size[0], size[1])},
				tc{k, append(runs[:1:1], variant), size[0], size[1], fmt.Sprintf("%s_compare_%dx%d", k, size[0], size[1])})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var svg bytes.Buffer
			if err := chart.Render(&svg, c.kind, c.runs, chart.Options{Format: chart.SVG, Width: c.w, Height: c.h}); err != nil {
				t.Fatal(err)
			}
			if keep != "" {
				var png bytes.Buffer
				if err := chart.Render(&png, c.kind, c.runs, chart.Options{Width: c.w, Height: c.h}); err != nil {
					t.Fatal(err)
				}
				_ = os.WriteFile(filepath.Join(keep, c.name+".svg"), svg.Bytes(), 0o644)
				_ = os.WriteFile(filepath.Join(keep, c.name+".png"), png.Bytes(), 0o644)
			}
			texts, shapes, w, h := layoutOf(t, svg.Bytes())
			if len(texts) == 0 {
				t.Fatal("no text found in the SVG; has vgsvg changed its output?")
			}
			for i, a := range texts {
				if a.box.x0 < 0 || a.box.y0 < 0 || a.end > w || a.box.y1 > h {
					t.Errorf("%q leaves the canvas", a.s)
				}
				for _, b := range texts[i+1:] {
					if a.box.overlaps(b.box) {
						t.Errorf("%q and %q overlap when set in a wider font", a.s, b.s)
					}
				}
				for _, s := range shapes {
					inside := s.box.x0 <= a.box.x0 && a.end <= s.box.x1 && s.box.y0 <= a.box.y0 && a.box.y1 <= s.box.y1
					if s.filled && (inside || s.box.x1-s.box.x0 >= w-1) {
						continue // text written on a cell, or the background
					}
					if a.box.overlaps(s.box) {
						t.Errorf("%q runs into a %s at %.1f,%.1f–%.1f,%.1f when set in a wider font", a.s,
							map[bool]string{true: "filled shape", false: "line"}[s.filled], s.box.x0, s.box.y0, s.box.x1, s.box.y1)
						break
					}
				}
			}
		})
	}
}
