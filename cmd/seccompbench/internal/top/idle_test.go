package top

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/internal/jsoncontract"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// idleOptions are fakeOptions with a second --pid target, 8 ("sleep"),
// that is never sampled: its CPU time is idleCPU(now) (the fake clock's
// ns), 7's the clock (busy all the time). gone, once set, makes 8's
// /proc vanish (fs.ErrNotExist) from that clock time on.
func idleOptions(t *testing.T, idleCPU func(now uint64) time.Duration) (*Options, *fakeSampler, *uint64) {
	o, f := fakeOptions(t)
	o.Pids = []int{7, 8}
	o.ListPids = func() ([]int, error) { return []int{7, 8}, nil }
	var gone uint64
	o.ProcCPU = func(pid int) (string, time.Duration, error) {
		now := f.clock.now
		switch {
		case pid == 7:
			return "loop", time.Duration(now), nil
		case pid == 8 && (gone == 0 || now < gone):
			return "sleep", idleCPU(now), nil
		}
		return "", 0, fmt.Errorf("read CPU time of pid %d: %w", pid, fs.ErrNotExist)
	}
	return o, f, &gone
}

// rowsByPid indexes a window's rows and says their order.
func rowsByPid(top *document.Top) (map[int]document.TopProcess, []int) {
	m := map[int]document.TopProcess{}
	var order []int
	for _, p := range top.Processes {
		m[p.Pid] = p
		order = append(order, p.Pid)
	}
	return m, order
}

// topText renders top as the table view does, with its lines joined
// where they wrap.
func topText(top *document.Top) string {
	var b strings.Builder
	report.WriteTopText(&b, top, 8, report.TextOptions{Explain: true})
	return b.String()
}

// TestIdleTarget: a --pid target without a sample in the window is
// listed, after the busy one, as idle: zero samples, CPU time from /proc
// (0 here), its filters, shares null in JSON (valid against the schema),
// a warning that it did not run, and a text row without NaN or a
// formatting error. The busy target's row is the same as when it is
// watched alone.
func TestIdleTarget(t *testing.T) {
	o, _, _ := idleOptions(t, func(uint64) time.Duration { return 0 })
	got := window5s(t, o)
	rows, order := rowsByPid(got)
	if !slices.Equal(order, []int{7, 8}) {
		t.Fatalf("rows %v, want the busy 7 then the idle 8", order)
	}
	p := rows[8]
	if !p.Idle || p.Exited || p.Samples != 0 || p.CPUNs != 0 || p.SeccompShare != nil || p.SeccompShareCILow != nil || p.SeccompShareCIHigh != nil ||
		p.Comm != "sleep" || p.Filters == nil || *p.Filters != 2 || len(p.FilterHashes) != 2 || p.Prediction != nil {
		t.Errorf("idle row %+v", p)
	}
	if !slices.Contains(p.Warnings, "no samples in this window: the process did not run") {
		t.Errorf("idle warnings %q", p.Warnings)
	}
	if rows[7].Idle || rows[7].Samples < 5000 {
		t.Errorf("busy row idle %v with %d samples", rows[7].Idle, rows[7].Samples)
	}

	// The busy target's row, watched alone.
	alone, fa := fakeOptions(t)
	alone.ProcCPU = func(int) (string, time.Duration, error) { return "loop", time.Duration(fa.clock.now), nil }
	want, _ := json.Marshal(window5s(t, alone).Processes[0])
	if b, _ := json.Marshal(rows[7]); !bytes.Equal(b, want) {
		t.Errorf("busy row beside an idle target:\n%s\nwant as alone:\n%s", b, want)
	}

	var b bytes.Buffer
	if err := report.WriteTopJSON(&b, got); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Processes []map[string]any `json:"processes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	jp := doc.Processes[1]
	for _, k := range []string{"seccomp_share", "seccomp_share_ci_low", "seccomp_share_ci_high"} {
		if v, ok := jp[k]; !ok || v != nil {
			t.Errorf("idle %s = %v (present %v), want null", k, v, ok)
		}
	}
	if jp["idle"] != true || jp["samples"] != 0.0 || jp["pid"] != 8.0 {
		t.Errorf("idle row in JSON: %v", jp)
	}
	if _, ok := doc.Processes[0]["idle"]; ok {
		t.Errorf("busy row has an idle key: %v", doc.Processes[0])
	}
	validTop(t, b.Bytes())

	text := topText(got)
	for _, bad := range []string{"NaN", "%!", "Inf"} {
		if strings.Contains(text, bad) {
			t.Errorf("text has %q:\n%s", bad, text)
		}
	}
	for _, want := range []string{"1 process over 5.00 s of wall time; 1 --pid target idle (no samples)",
		"8 sleep: idle, no samples in the window (0 ns of CPU), 2 filters",
		"share - (idle)", "warning: no samples in this window: the process did not run"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("text has no %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "\n8       sleep ") {
		t.Errorf("text has no row for pid 8:\n%s", text)
	}
}

// validTop checks a top document against docs/schema and that its
// English is only where docs/json.md allows it.
func validTop(t *testing.T, doc []byte) {
	t.Helper()
	v, err := jsoncontract.NewValidator(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	k, err := v.Validate(doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	sentences, err := jsoncontract.Sentences(k, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sentences {
		t.Errorf("sentence outside the keys docs/json.md allows: %.160s", s)
	}
}

// TestIdleTargetRanLittle: an idle target that /proc says ran a little
// (a clock tick, under one sampling period) has that CPU time and a
// warning saying both figures.
func TestIdleTargetRanLittle(t *testing.T) {
	o, _, _ := idleOptions(t, func(now uint64) time.Duration {
		if now > 1e9 {
			return 10 * time.Millisecond
		}
		return 0
	})
	p, _ := rowsByPid(window5s(t, o))
	if !p[8].Idle || p[8].CPUNs != 1e7 || p[8].SeccompShare != nil {
		t.Errorf("row %+v, want idle with 10 ms of CPU and no share", p[8])
	}
	want := "no samples in this window: /proc counts 10ms of CPU for it (in clock ticks); one sample per 1ms of CPU on average"
	if !slices.Contains(p[8].Warnings, want) {
		t.Errorf("warnings %q, want %q", p[8].Warnings, want)
	}
}

// TestOnlyIdleTarget: a lone --pid target that did not run is one idle
// row, and the headline says there was nothing to sample.
func TestOnlyIdleTarget(t *testing.T) {
	o, f := fakeOptions(t)
	f.quiet = true
	o.ProcCPU = func(int) (string, time.Duration, error) { return "sleep", 0, nil }
	got := window5s(t, o)
	if len(got.Processes) != 1 || !got.Processes[0].Idle || got.Processes[0].Samples != 0 {
		t.Fatalf("rows %+v, want one idle row", got.Processes)
	}
	text := topText(got)
	for _, want := range []string{"nothing to say: no samples of the selected processes", "0 processes over 5.00 s of wall time; 1 --pid target idle",
		"no samples of the selected processes in the window", "share - (idle)"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("text has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "NaN") || strings.Contains(text, "%!") {
		t.Errorf("text:\n%s", text)
	}
}

// TestTargetExits: an idle target listed in every window; when it exits
// it is reported once as exited (here with no samples: CPU 0, filters
// null, its last name) and then no more. A target that exits with
// samples in the window keeps them and is marked exited once.
func TestTargetExits(t *testing.T) {
	o, f, gone := idleOptions(t, func(uint64) time.Duration { return 0 })
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 2 {
		if rows, order := rowsByPid(window5sOn(t, w)); !slices.Equal(order, []int{7, 8}) || !rows[8].Idle {
			t.Fatalf("window %d: rows %v, idle %v; want 7 then idle 8", i, order, rows[8].Idle)
		}
	}
	*gone = f.clock.now + 1 // exits before the next window starts
	got := window5sOn(t, w)
	rows, order := rowsByPid(got)
	p := rows[8]
	if !slices.Equal(order, []int{7, 8}) || !p.Exited || p.Idle || p.Samples != 0 || p.CPUNs != 0 || p.Filters != nil || p.Comm != "sleep" || p.SeccompShare != nil {
		t.Fatalf("exit window: rows %v, 8: %+v", order, p)
	}
	if !slices.Contains(p.Warnings, "the process has exited, with no samples in this window; it is not listed again") {
		t.Errorf("exited warnings %q", p.Warnings)
	}
	var b bytes.Buffer
	if err := report.WriteTopJSON(&b, got); err != nil {
		t.Fatal(err)
	}
	validTop(t, b.Bytes())
	if text := topText(got); !strings.Contains(text, "share - (exited)") || !strings.Contains(text, "1 --pid target exited") {
		t.Errorf("text:\n%s", text)
	}
	if _, order := rowsByPid(window5sOn(t, w)); !slices.Equal(order, []int{7}) {
		t.Errorf("window after the exit: rows %v, want 7 alone", order)
	}

	// Sampled until it exits mid-window.
	o, f, gone = idleOptions(t, func(uint64) time.Duration { return 0 })
	f.extra = []uint32{8}
	*gone = f.clock.now + uint64(2*time.Second)
	w2, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	rows, _ = rowsByPid(window5sOn(t, w2))
	if p := rows[8]; !p.Exited || p.Idle || p.Samples == 0 || !slices.Contains(p.Warnings, "the process exited in this window; it is not listed again") {
		t.Errorf("exited with samples: %+v", p)
	}
	f.extra = nil
	if _, order := rowsByPid(window5sOn(t, w2)); !slices.Equal(order, []int{7}) {
		t.Errorf("window after the exit: rows %v, want 7 alone", order)
	}
}

// TestChildrenIdleParent: with --children an idle target is listed
// beside its busy child (after it: the child has samples); a child
// without samples is not listed, nor is any process outside the targets.
func TestChildrenIdleParent(t *testing.T) {
	o, f, _, _ := childrenOptions(t)
	f.quiet = true
	f.extra = []uint32{20}
	o.ProcCPU = func(pid int) (string, time.Duration, error) {
		if pid == 7 {
			return "sh", 0, nil
		}
		return "worker", time.Duration(f.clock.now), nil
	}
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := window5sOn(t, w)
	rows, order := rowsByPid(got)
	if !slices.Equal(order, []int{20, 7}) {
		t.Fatalf("rows %v, want the busy child 20 then the idle target 7 (not 21: no samples)", order)
	}
	if p := rows[7]; !p.Idle || p.Child || p.Samples != 0 || p.SeccompShare != nil || p.Comm != "sh" {
		t.Errorf("target row %+v, want idle", p)
	}
	if p := rows[20]; p.Idle || !p.Child || p.ChildOf == nil || *p.ChildOf != 7 || p.Samples == 0 {
		t.Errorf("child row %+v, want sampled child of 7", p)
	}
	var b bytes.Buffer
	if err := report.WriteTopJSON(&b, got); err != nil {
		t.Fatal(err)
	}
	validTop(t, b.Bytes())
}
