package output

import (
	"bytes"
	"errors"
	"io"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
)

// WriteRunHTML writes the HTML report of a run (report.WriteHTML) with its
// plot inline; notes about what could not be drawn go to warn.
func WriteRunHTML(w, warn io.Writer, doc *document.Document) error {
	var figs []report.HTMLFigure
	var svg bytes.Buffer
	switch err := chart.WriteSVG(&svg, warn, doc); {
	case err == nil:
		figs = append(figs, report.HTMLFigure{SVG: svg.Bytes(), Caption: "Cost per op against the number of filters stacked, per variant: measured cells with their confidence intervals and the fitted line. Blue circles: action cache on; vermillion triangles: cache defeated, every filter runs."})
	case !errors.Is(err, chart.ErrNothingToPlot):
		return err
	}
	return report.WriteHTML(w, doc, report.HTMLCharts{Figures: figs, Fonts: chart.SVGFonts()})
}

// fleetFigures is the fleet plot of fl as a figure, none when fl has no
// rows.
func fleetFigures(fl *document.Fleet, caption string) ([]report.HTMLFigure, error) {
	var svg bytes.Buffer
	switch err := chart.WriteFleetSVG(&svg, fl); {
	case errors.Is(err, chart.ErrNothingToPlot):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return []report.HTMLFigure{{SVG: svg.Bytes(), Caption: caption}}, nil
}

// WriteFleetHTML writes the HTML report of `report` (report.WriteFleetHTML)
// with the fleet plot inline.
func WriteFleetHTML(w io.Writer, fl *document.Fleet) error {
	figs, err := fleetFigures(fl, "Per-filter cost of every result, with its confidence interval; blue circles: action cache on, vermillion triangles: cache defeated.")
	if err != nil {
		return err
	}
	return report.WriteFleetHTML(w, fl, report.HTMLCharts{Figures: figs, Fonts: chart.SVGFonts()})
}

// WriteComparisonHTML writes the HTML report of `compare`
// (report.WriteComparisonHTML) with the compared results' per-filter
// costs side by side (the fleet plot of entries) inline.
func WriteComparisonHTML(w io.Writer, c *document.Comparison, entries []document.FleetEntry) error {
	var figs []report.HTMLFigure
	// Results BuildFleet cannot lay out get no plot; the tables stand.
	if fl, err := report.BuildFleet(entries); err == nil {
		if figs, err = fleetFigures(fl, "Per-filter cost of each compared result, with its confidence interval; blue circles: action cache on, vermillion triangles: cache defeated. The tables above test the differences."); err != nil {
			return err
		}
	}
	return report.WriteComparisonHTML(w, c, report.HTMLCharts{Figures: figs, Fonts: chart.SVGFonts()})
}

// WriteEstimateHTML writes the HTML report of `estimate`
// (report.WriteEstimateHTML, top syscalls, all when top is 0) with the
// per-syscall plot inline.
func WriteEstimateHTML(w io.Writer, e *document.Estimate, top int) error {
	var figs []report.HTMLFigure
	var svg bytes.Buffer
	switch err := chart.WriteEstimateSVG(&svg, e, top); {
	case err == nil:
		figs = append(figs, report.HTMLFigure{SVG: svg.Bytes(), Caption: "Predicted time the filters add to one call of each syscall of the profile; vermillion triangles: not cached, every filter runs; blue circles: cached."})
	case !errors.Is(err, chart.ErrNothingToPlot):
		return err
	}
	return report.WriteEstimateHTML(w, e, top, report.HTMLCharts{Figures: figs, Fonts: chart.SVGFonts()})
}
