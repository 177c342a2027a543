package runjob

import (
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"
	"github.com/seccompbench/seccompbench/runner/result"
)

// newProgress returns a runner progress callback that draws a progress bar
// on w: children done/total, elapsed time, estimated time left and the cell
// of the child that just finished. The bar is created on the first call
// (when the total is known) and ends with a newline when done == total.
// Callers install it only when w is a terminal and --quiet is off, so
// stdout stays clean for the report.
func newProgress(w io.Writer) func(done, total int, c result.Cell) {
	var bar *progressbar.ProgressBar
	return func(done, total int, c result.Cell) {
		if bar == nil {
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("measuring"),
				progressbar.OptionSetItsString("children"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionSetWidth(24),
				progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
			)
		}
		bar.Describe(fmt.Sprintf("children; last %s", c))
		bar.Set(done)
	}
}
