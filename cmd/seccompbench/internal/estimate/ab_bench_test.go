package estimate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/runner/command"
)

// abEnv returns the environment variable name's value, def when unset.
func abEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// abOptions reads the comparison's settings from the environment:
//
//	SECCOMPBENCH_AB_CMD      the command, split on spaces (find /usr/share -name x)
//	SECCOMPBENCH_AB_POLICY   the policy file, absolute or relative to this package's
//	                         directory; none for the unit's stack alone
//	                         (testdata/policies/docker-default.json)
//	SECCOMPBENCH_AB_UNIT     a systemd unit whose stack goes first (none)
//	SECCOMPBENCH_AB_FILTERS  the stack depth (16; 0: one per policy)
//	SECCOMPBENCH_AB_CACHE    on or defeat (defeat)
//	SECCOMPBENCH_AB_TIME     measuring time per design (60s)
//	SECCOMPBENCH_AB_TRIALS   blocks per design (10)
//	SECCOMPBENCH_AB_DESIGNS  designs, comma-separated (children,pairs,duet)
func abOptions(tb testing.TB) (*Options, []command.Design) {
	filtersN, err1 := strconv.Atoi(abEnv("SECCOMPBENCH_AB_FILTERS", "16"))
	budget, err2 := time.ParseDuration(abEnv("SECCOMPBENCH_AB_TIME", "60s"))
	trials, err3 := strconv.Atoi(abEnv("SECCOMPBENCH_AB_TRIALS", "10"))
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			tb.Fatalf("SECCOMPBENCH_AB_*: %v", err)
		}
	}
	opts := &Options{Policies: []string{abEnv("SECCOMPBENCH_AB_POLICY", "../../../../testdata/policies/docker-default.json")},
		SystemdUnit: os.Getenv("SECCOMPBENCH_AB_UNIT"), Filters: filtersN, Cache: abEnv("SECCOMPBENCH_AB_CACHE", "defeat"),
		Command: strings.Fields(abEnv("SECCOMPBENCH_AB_CMD", "find /usr/share -name x")), Confidence: 0.95, Seed: 1,
		Trials: trials, ABTime: budget, MaxTime: 4 * budget, Open: formats.OpenOptions{}}
	var designs []command.Design
	for _, s := range strings.Split(abEnv("SECCOMPBENCH_AB_DESIGNS", "children,pairs,duet"), ",") {
		d, err := command.ParseDesign(s)
		if err != nil {
			tb.Fatalf("SECCOMPBENCH_AB_DESIGNS: %v", err)
		}
		designs = append(designs, d)
	}
	if opts.Policies[0] == "none" {
		opts.Policies = nil
	}
	return opts, designs
}

// BenchmarkABDesign measures one command under one stack with each A/B
// design of estimate --command for the same measuring time, and prints
// each design's added time (wall and CPU) with its 95 % interval, the
// half-width in percent of the added time and of the baseline run, and
// the time it took (docs/estimate-command.md, "Choosing the A/B design"). Settings
// come from SECCOMPBENCH_AB_* (abOptions); run it once per design:
//
//	go test ./cmd/seccompbench/internal/estimate -run '^$' -bench ABDesign -benchtime 1x -timeout 60m
//
// It is a benchmark, not a test: its figures depend on the machine.
func BenchmarkABDesign(b *testing.B) {
	opts, designs := abOptions(b)
	var all []ABResult
	for _, d := range designs {
		b.Run("design="+string(d), func(b *testing.B) {
			for range b.N {
				rs, err := CompareAB(context.Background(), opts, []command.Design{d}, os.Stderr)
				if err != nil {
					b.Fatal(err)
				}
				r := rs[0]
				all = append(all, r)
				b.ReportMetric(r.Wall.Center/1e6, "wall-added-ms")
				b.ReportMetric(HalfWidthPct(r.Wall), "wall-hw-%")
				b.ReportMetric(r.CPU.Center/1e6, "cpu-added-ms")
				b.ReportMetric(HalfWidthPct(r.CPU), "cpu-hw-%")
				b.ReportMetric(r.Elapsed.Seconds(), "s-measuring")
			}
		})
	}
	fmt.Printf("`%s` under %v, unit %q, %d filters (0: one per policy), cache %s, %s per design over %d blocks:\n",
		strings.Join(opts.Command, " "), opts.Policies, opts.SystemdUnit, opts.Filters, opts.Cache, opts.ABTime, opts.Trials)
	WriteABComparison(os.Stdout, all)
}
