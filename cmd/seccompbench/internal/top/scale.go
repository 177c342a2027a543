package top

import (
	"fmt"
	"math"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/stats"
)

// maxCounterShareError is the relative error of the calls' scale, at
// --confidence,
// from the binomial error of the counter's own share of the time while
// counting, above which a --pid process's call counts get a warning.
const maxCounterShareError = 0.10

// minCountedSamples is the number of a process's samples taken while the
// counter was attached below which the call counts get a warning: 100
// samples give the scale an error of about ±20 % at 95 % confidence.
const minCountedSamples = 100

// batchFor returns the batch length for a window: set, or a twentieth of
// the window (BatchShare wants at least 10 batches) but at least 50 ms, so
// that a batch holds about 50 samples of a busy thread at 997 Hz.
func batchFor(set, window time.Duration) time.Duration {
	if set > 0 {
		return set
	}
	return max(window/20, 50*time.Millisecond)
}

// callScale is how process pid's calls, counted while the counter was
// on, scale to the window (NaN when they cannot: no calls counted), what
// the scale came from ("cpu_time", "samples", ""), the scale's relative
// error at confidence (a half-width as a fraction, 0 when not known) and
// the warnings on that error. period is the sampling period in ns.
//
// counted is the number of the process's calls the counter saw, and
// counterNs the counter's measured cost per counted call in ns
// (live.Session.CounterCost; NaN when not measured): the counter's own
// time while on is counted × counterNs, or, without that figure, its
// samples × the period (which misses most of it: the tracepoint path
// slows each call by more than the samples landing in the counter show).
func callScale(tl *kstack.Tally, in windowInput, pid int, countedCalls uint64, counterNs, period, confidence float64) (float64, string, float64, []string) {
	counted := countedCalls > 0
	var by string
	var warns []string
	var relErr float64
	// Calls counted while the counter was on, scaled to the window by the
	// process's CPU time outside the counter: calls track the work the
	// process does, and the counter's own time (its samples × the
	// period, spent only while on) slows it while on. With --pid the CPU
	// times are exact (schedstat, read inside each attached interval);
	// otherwise they are the process's samples, whose ratio carries
	// Poisson error.
	scale := math.NaN()
	if onCPU, ok := in.onCPU[pid]; ok && onCPU > 0 && counted {
		t0, ok0 := in.task0[pid]
		t1, ok1 := in.task1[pid]
		ctr := float64(tl.CounterSamples) * period
		measured := !math.IsNaN(counterNs)
		if measured {
			ctr = float64(countedCalls) * counterNs
		}
		if busyOn := float64(onCPU) - ctr; ok0 && ok1 && t1 > t0 && busyOn > 0 {
			scale = (float64(t1-t0) - ctr) / busyOn
			by = "cpu_time"
			// The CPU times are exact, but without a measured cost per
			// call the counter's own share f of the time while counting
			// comes from its samples: n samples while on give f a
			// binomial error, and the scale moves by 1/(1−f).
			if n := tl.CountedSamples; n > 0 && !measured {
				f := float64(tl.CounterSamples) / float64(n)
				// With no counter sample, f's error is taken as that of
				// one sample in n+1, not 0.
				fe := math.Max(f, 1/float64(n+1))
				e := stats.ZQuantile(confidence) * math.Sqrt(fe*(1-fe)/float64(n)) / (1 - f)
				relErr = e
				if e > maxCounterShareError {
					warns = append(warns, fmt.Sprintf("calls scaled by exact CPU time less the counter's own share, %.0f%% from %d samples taken while counting (about ±%.0f%% on calls and ns per call): raise --count-duty or --duration",
						100*f, n, 100*e))
				}
			}
		}
	}
	if busyOn := tl.CountedSamples - tl.CounterSamples; math.IsNaN(scale) && busyOn > 0 && counted {
		by = "samples"
		scale = float64(tl.Samples-tl.CounterSamples) / float64(busyOn)
		if ctr := float64(countedCalls) * counterNs; !math.IsNaN(counterNs) && float64(tl.CountedSamples)*period > ctr {
			scale = (float64(tl.Samples)*period - ctr) / (float64(tl.CountedSamples)*period - ctr)
		}
		relErr = stats.ZQuantile(confidence) / math.Sqrt(float64(busyOn))
		if busyOn < minCountedSamples && counted {
			// The scale is a ratio of sample counts: its relative error is
			// about 1/sqrt(busyOn) (Poisson), before correlation; shown at
			// --confidence.
			warns = append(warns, fmt.Sprintf("calls scaled from %d samples taken while counting (about ±%.0f%% on calls and ns per call): raise --count-duty or --duration",
				busyOn, 100*stats.ZQuantile(confidence)/math.Sqrt(float64(busyOn))))
		}
	}
	return scale, by, relErr, warns
}
