// Package svgtest reads rendered SVG for the tests of report and
// report/chart.
package svgtest

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// Texts returns the character data of every <text> element of the SVG
// document b, failing the test when b is not XML or has no <svg>.
func Texts(t testing.TB, b []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	var inText bool
	sawSVG := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not valid XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "svg" {
				sawSVG = true
			}
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	if !sawSVG {
		t.Fatal("no <svg> element")
	}
	return texts
}

// Element is one drawn element of an SVG document: its name ("path",
// "text"), its fill and stroke colours as vgsvg writes them ("#0072B2",
// "" when not set or "none"), a path's data and a text's characters.
type Element struct {
	Name   string
	Fill   string
	Stroke string
	D      string
	Text   string
}

// Elements returns the path and text elements of the SVG document b in
// drawing order, failing the test when b is not XML.
func Elements(t testing.TB, b []byte) []Element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var out []Element
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG is not valid XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			if tok.Name.Local != "path" && !inText {
				continue
			}
			e := Element{Name: tok.Name.Local}
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "d":
					e.D = a.Value
				case "style":
					e.Fill, e.Stroke = styleColor(a.Value, "fill"), styleColor(a.Value, "stroke")
				}
			}
			out = append(out, e)
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				out[len(out)-1].Text += string(tok)
			}
		}
	}
}

// styleColor returns the value of property key (fill, stroke) in a style
// attribute, "" when absent or "none".
func styleColor(style, key string) string {
	for _, decl := range strings.Split(style, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if ok && strings.TrimSpace(k) == key && strings.TrimSpace(v) != "none" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// LegendEntry is a legend line of a gonum/plot chart: its text, its
// thumbnail's colour (the fill of the path drawn just before the text,
// else its stroke) and the index of that path among els.
type LegendEntry struct {
	Text  string
	Color string
	Index int
}

// Legend finds the legend entry whose text is exactly text among els
// (gonum/plot draws each entry's thumbnail, then its text), failing the
// test when there is no such text or no path before it.
func Legend(t testing.TB, els []Element, text string) LegendEntry {
	t.Helper()
	for i, e := range els {
		if e.Name != "text" || e.Text != text {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if els[j].Name == "path" {
				c := els[j].Fill
				if c == "" {
					c = els[j].Stroke
				}
				return LegendEntry{Text: text, Color: c, Index: j}
			}
		}
		t.Fatalf("legend entry %q has no thumbnail before it", text)
	}
	t.Fatalf("SVG has no text %q", text)
	return LegendEntry{}
}
