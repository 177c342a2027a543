// Package protocol is what the VM test harness (internal/vmtest) and its
// /init (internal/vmtest/vminit) agree on: the plan the host packs into the
// initramfs, the marker lines /init prints on the serial console, and the
// parser that turns the console log back into per-step results.
package protocol

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PlanPath is where the host puts the plan inside the initramfs.
const PlanPath = "/vmtest/plan.json"

// Marker lines printed by /init, each at the start of a console line.
const (
	// Kernel is followed by the guest's kernel release and GOARCH.
	Kernel = "VMTEST:KERNEL"
	// Begin is followed by a step name.
	Begin = "VMTEST:BEGIN"
	// End is followed by a step name, "exit=N" and "seconds=S".
	End = "VMTEST:END"
	// Error is followed by an error that stopped /init before or between
	// steps.
	Error = "VMTEST:ERROR"
	// Done is the last line /init prints before powering off.
	Done = "VMTEST:DONE"
)

// Plan lists the steps /init runs, in order.
type Plan struct {
	Steps []Step `json:"steps"`
}

// Step is one program /init runs: typically a Go test binary with -test.v.
type Step struct {
	// Name names the step in marker lines and results.
	Name string `json:"name"`
	// Path is the program's path inside the initramfs.
	Path string `json:"path"`
	// Args are its arguments (without argv[0]).
	Args []string `json:"args,omitempty"`
	// Dir is its working directory ("" for /).
	Dir string `json:"dir,omitempty"`
	// Env is added to /init's fixed environment (PATH, HOME, TMPDIR).
	Env []string `json:"env,omitempty"`
	// TimeoutSeconds bounds the step (0: no bound); on expiry /init kills
	// it and reports exit 124.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
}

// StepResult is what the console log says about one step.
type StepResult struct {
	Name string
	// Exit is the step's exit status; -1 if the log has no End marker
	// for it (the VM died or timed out mid-step).
	Exit int
	// Seconds is the step's wall time inside the guest, in seconds.
	Seconds float64
	// Passed, Failed and Skipped are go test's "--- PASS/FAIL/SKIP:"
	// names, subtests included ("TestX/sub"), in log order.
	Passed, Failed, Skipped []string
	// SkipReasons maps a skipped test to its t.Skip message: the last
	// "file.go:N:" line go test -v streamed while that test was running
	// (after its "=== RUN"; subtests' "--- SKIP" lines come later, with
	// their parent's), or failing that the first line after "--- SKIP".
	SkipReasons map[string]string
	// Finished reports that the step's End marker was seen.
	Finished bool
}

// Result is what the console log says about one boot.
type Result struct {
	// Release and Arch come from the Kernel marker ("" if /init never
	// printed it: the kernel did not boot or could not run /init).
	Release, Arch string
	Steps         []StepResult
	// Errors are the Error markers' texts.
	Errors []string
	// Done reports that /init reached its last line.
	Done bool
}

// OK reports whether the boot finished and every step exited 0 with no
// failed test.
func (r *Result) OK() bool {
	if !r.Done || len(r.Errors) > 0 || len(r.Steps) == 0 {
		return false
	}
	for _, s := range r.Steps {
		if !s.Finished || s.Exit != 0 || len(s.Failed) > 0 {
			return false
		}
	}
	return true
}

// Counts returns the number of passed, failed and skipped tests over all
// steps, counting top-level tests only (names without "/").
func (r *Result) Counts() (passed, failed, skipped int) {
	top := func(names []string) int {
		n := 0
		for _, s := range names {
			if !strings.Contains(s, "/") {
				n++
			}
		}
		return n
	}
	for _, s := range r.Steps {
		passed += top(s.Passed)
		failed += top(s.Failed)
		skipped += top(s.Skipped)
	}
	return
}

// testLine matches go test -v's result lines, indented for subtests. The
// serial console may prefix a line with a carriage return or kernel output,
// so it is not anchored.
var testLine = regexp.MustCompile(`--- (PASS|FAIL|SKIP): (\S+) \(`)

// logLine matches a t.Log line as go test -v prints it: "file_test.go:N: msg".
var logLine = regexp.MustCompile(`^\S+\.go:\d+: `)

// Parse reads a console log and returns what it says. It never fails on
// unexpected lines (kernel messages interleave with the guest's output);
// only a read error is returned.
func Parse(r io.Reader) (*Result, error) {
	res := &Result{}
	var cur *StepResult
	var lastSkip, running string
	lastLog := map[string]string{} // test name -> last t.Log line it printed
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if i := strings.Index(line, "VMTEST:"); i >= 0 {
			cur = res.marker(line[i:], cur)
			lastSkip = ""
			continue
		}
		if cur == nil {
			continue
		}
		if m := testLine.FindStringSubmatch(line); m != nil {
			lastSkip = ""
			switch m[1] {
			case "PASS":
				cur.Passed = append(cur.Passed, m[2])
			case "FAIL":
				cur.Failed = append(cur.Failed, m[2])
			case "SKIP":
				cur.Skipped = append(cur.Skipped, m[2])
				if r := lastLog[m[2]]; r != "" {
					cur.SkipReasons[m[2]] = r
				} else {
					lastSkip = m[2]
				}
			}
			continue
		}
		if t := strings.TrimSpace(line); logLine.MatchString(t) {
			if running != "" {
				lastLog[running] = t
			}
		} else if name, ok := strings.CutPrefix(t, "=== RUN "); ok {
			running = strings.TrimSpace(name)
		} else if name, ok := strings.CutPrefix(t, "=== CONT "); ok {
			running = strings.TrimSpace(name)
		}
		if lastSkip != "" {
			if t := strings.TrimSpace(line); t != "" {
				cur.SkipReasons[lastSkip] = t
				lastSkip = ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("read console log: %w", err)
	}
	return res, nil
}

// marker takes one protocol line (from "VMTEST:" on) while step cur (nil
// between steps) is open, and returns the step open after it.
func (res *Result) marker(line string, cur *StepResult) *StepResult {
	f := strings.Fields(line)
	switch f[0] {
	case Kernel:
		if len(f) >= 3 {
			res.Release, res.Arch = f[1], f[2]
		}
	case Begin:
		if len(f) >= 2 {
			res.Steps = append(res.Steps, StepResult{Name: f[1], Exit: -1, SkipReasons: map[string]string{}})
			cur = &res.Steps[len(res.Steps)-1]
		}
	case End:
		if cur != nil && len(f) >= 2 && f[1] == cur.Name {
			cur.Finished = true
			for _, kv := range f[2:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "exit":
					cur.Exit, _ = strconv.Atoi(v)
				case "seconds":
					cur.Seconds, _ = strconv.ParseFloat(v, 64)
				}
			}
			cur = nil
		}
	case Error:
		res.Errors = append(res.Errors, strings.TrimSpace(strings.TrimPrefix(line, Error)))
	case Done:
		res.Done = true
	}
	return cur
}

// Summary returns one line per failed test and a last line with the counts,
// for a human reading the matrix output.
func (r *Result) Summary() string {
	var b strings.Builder
	var failed []string
	for _, s := range r.Steps {
		for _, f := range s.Failed {
			failed = append(failed, s.Name+": "+f)
		}
		if !s.Finished {
			failed = append(failed, s.Name+": did not finish")
		} else if s.Exit != 0 && len(s.Failed) == 0 {
			failed = append(failed, fmt.Sprintf("%s: exit %d", s.Name, s.Exit))
		}
	}
	sort.Strings(failed)
	for _, f := range failed {
		fmt.Fprintf(&b, "FAIL %s\n", f)
	}
	p, f, s := r.Counts()
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped", p, f, s)
	if !r.Done {
		b.WriteString(" (no VMTEST:DONE: the guest did not finish)")
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "\nerror: %s", e)
	}
	return b.String()
}
