package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// measuredHead is the line that says how the command was measured: its
// A/B design, blocks and runs.
func measuredHead(c *document.EstimateCommand, span string) string {
	design := "children"
	if c.AB != nil {
		design = c.AB.Design
	}
	switch design {
	case "pairs":
		return fmt.Sprintf("measured: %s without and with %s (%s), %d children, %d interleaved pairs in all (order random per pair); per run, %s",
			text.ShellWords(c.Argv), Plural(c.Filters, "filter"), c.Variant, c.AB.Children, c.AB.Pairs, span)
	case "duet":
		return fmt.Sprintf("measured: %s without and with %s (%s), %d children, %d pairs in all, each pair's runs at once on two CPUs (sides swapped as drawn); per run, %s",
			text.ShellWords(c.Argv), Plural(c.Filters, "filter"), c.Variant, c.AB.Children, c.AB.Pairs, span)
	}
	return fmt.Sprintf("measured: %s under 0 and %s (%s), %d blocks of fresh children, %d timed runs each; per run, %s",
		text.ShellWords(c.Argv), Plural(c.Filters, "filter"), c.Variant, c.Trials, c.RunsPerChild, span)
}

// abPrecision is the precision of the measured added time: the
// half-widths and whether they meet the bar (CommandAB.MeetsBar: ±20 %
// of the added time, or ±0.3 % of the baseline run).
func abPrecision(ab *document.CommandAB) string {
	bar := "met"
	switch {
	case ab.MeetsBar && !ab.CPUMeetsBar:
		bar = "met (not in CPU time)"
	case !ab.MeetsBar && ab.CPUMeetsBar:
		bar = "met in CPU time, NOT in wall time"
	case !ab.MeetsBar:
		bar = "NOT met"
	}
	bar = fmt.Sprintf("the bar (±%.0f%% of the added time, or ±%.1f%% of the baseline run when the added time is smaller) %s", 100*document.BarAddedFrac, 100*document.BarBaselineFrac, bar)
	return fmt.Sprintf("±%.0f%% of added (CPU ±%.0f%%), ±%.2f%% of baseline, %s measuring; %s",
		ab.HalfWidthPct, ab.CPUHalfWidthPct, ab.HalfWidthBaselinePct, text.Duration(ab.MeasuringNs), bar)
}

// abToBar is the line that says how long the measurement would take to
// meet the bar (CommandAB.BarMeasuringNs) in wall and CPU time, each
// where it is not met, and the flags for the longer; "" when both are
// met or no projection was made.
func abToBar(ab *document.CommandAB) string {
	type side struct {
		name   string
		ns     float64
		trials int
	}
	var miss []side
	if !ab.MeetsBar && ab.BarMeasuringNs > 0 && ab.BarTrials > 0 {
		miss = append(miss, side{"wall", ab.BarMeasuringNs, ab.BarTrials})
	}
	if !ab.CPUMeetsBar && ab.CPUBarMeasuringNs > 0 && ab.CPUBarTrials > 0 {
		miss = append(miss, side{"CPU", ab.CPUBarMeasuringNs, ab.CPUBarTrials})
	}
	if len(miss) == 0 {
		return ""
	}
	var parts []string
	longest := miss[0]
	for _, m := range miss {
		t := "more than a day"
		if m.ns <= 24*3600e9 {
			t = "about " + flagDuration(m.ns)
		}
		parts = append(parts, m.name+" "+t)
		if m.ns > longest.ns {
			longest = m
		}
	}
	line := strings.Join(parts, ", ") + " of measuring at the spread seen"
	if longest.ns > 24*3600e9 {
		return line
	}
	both := ""
	if len(miss) == 2 {
		both = "for both: "
	}
	return fmt.Sprintf("%s (%s--ab-time %s --trials %d)", line, both, flagDuration(longest.ns), longest.trials)
}

// flagDuration is ns rounded up to a whole second (a whole minute above
// ten) as a Go duration a flag takes.
func flagDuration(ns float64) string {
	d := time.Duration(math.Ceil(ns/1e9)) * time.Second
	if d > 10*time.Minute {
		d = (d + time.Minute - 1).Truncate(time.Minute)
	}
	s := d.String()
	if d >= time.Minute && d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
	}
	if d >= time.Hour && d%time.Hour == 0 {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
