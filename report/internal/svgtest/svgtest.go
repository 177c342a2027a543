// Package svgtest reads rendered SVG for the tests of report and
// report/chart.
package svgtest

import (
	"bytes"
	"encoding/xml"
	"io"
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
