package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// loaderDoc builds a --loader both document from synthetic children: the
// unprivileged loader's filters cost extra ns more each, every child has a
// pad, and the host's spectre_v2 line reports bhi.
func loaderDoc(t *testing.T, extra float64, bhi string) *document.Document {
	t.Helper()
	var samples []result.Sample
	seq := 0
	for b := range 6 {
		for _, l := range []result.Loader{result.LoaderUnprivileged, result.LoaderPrivileged} {
			for _, n := range fixtureCounts {
				pad := (seq * 7) % 17
				y := fixtureNs(result.VariantDefeat, n, b, 0) + float64(pad%3-1)*0.2*float64(n)
				if l == result.LoaderUnprivileged {
					y += extra * float64(n)
				}
				priv := l == result.LoaderPrivileged
				caps := result.Caps{Eff: 0x1ffffdfffff, Prm: 0x1ffffdfffff, Bnd: 0x1ffffdfffff}
				if priv {
					caps = result.Caps{Eff: 0x1ffffffffff, Prm: 0x1ffffffffff, Bnd: 0x1ffffffffff}
				}
				samples = append(samples, result.Sample{Cell: result.Cell{Variant: result.VariantDefeat, Filters: n, Loader: l},
					Block: b, Seq: seq, NsPerOp: y, CPU: 1, FiltersSeen: n, Pad: pad, Caps: caps, CapSysAdmin: priv})
				seq++
			}
		}
	}
	obs := make([]stats.Observation, len(samples))
	for i, s := range samples {
		obs[i] = stats.Observation{Variant: string(s.Variant), Loader: string(s.Loader), Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp, Pad: s.Pad}
	}
	res, err := stats.Analyze(obs, stats.Options{Confidence: 0.95, Seed: 1, Variants: []string{"defeat"}, Loaders: []string{"unprivileged", "privileged"}})
	if err != nil {
		t.Fatal(err)
	}
	return Build(document.Input{
		Tool: document.Tool{Name: "seccompbench", Version: "test"}, Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Environment: result.Environment{Kernel: "6.18", Vulnerabilities: map[string]string{
			"spectre_v2": "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: " + bhi, "spec_store_bypass": "Vulnerable"},
			CmdlineMitigations: []string{"mitigations=auto", "pti=on"}},
		Config: document.Config{FilterCounts: fixtureCounts, Workload: "getpid", Op: "one getpid() syscall", Cache: "defeat", Variants: []string{"defeat"},
			Trials: 6, Confidence: 0.95, Loader: "both", Placement: "random", PadMin: 0, PadMax: 16},
		Samples: samples, Result: res,
	})
}

// TestLoaderDocument: the JSON carries the loader, capabilities, pads and
// placement keys of the contract, and the sentences say why the loaders
// differ or not on the host.
func TestLoaderDocument(t *testing.T) {
	tests := []struct {
		name  string
		extra float64
		bhi   string
		want  []string
	}{
		{"not affected, no difference", 0, "Not affected", []string{"not distinguishable from 0", "the JIT emits it for neither loader", "Placement moves the per-filter cost by ±"}},
		{"SW loop, barrier costs", 8, "SW loop, KVM: SW loop", []string{"Filters loaded without CAP_SYS_ADMIN cost 8.0 ns more each", "the kernel's branch-history barrier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := loaderDoc(t, tt.extra, tt.bhi)
			var buf bytes.Buffer
			if err := WriteJSON(&buf, d); err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Config      map[string]any   `json:"config"`
				Environment map[string]any   `json:"environment"`
				Results     []map[string]any `json:"results"`
				Fits        []map[string]any `json:"fits"`
				LoaderDiffs []map[string]any `json:"loader_diffs"`
			}
			if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"loader", "placement", "pad_min", "pad_max"} {
				if _, ok := raw.Config[k]; !ok {
					t.Errorf("config.%s missing", k)
				}
			}
			if _, ok := raw.Environment["cmdline_mitigations"]; !ok {
				t.Error("environment.cmdline_mitigations missing")
			}
			for _, r := range raw.Results {
				pads, _ := r["pads"].([]any)
				samples, _ := r["samples_ns"].([]any)
				if len(pads) != len(samples) {
					t.Errorf("result %v/%v/%v: %d pads for %d samples", r["variant"], r["loader"], r["filters"], len(pads), len(samples))
				}
				want := r["loader"] == "privileged"
				if got, ok := r["cap_sys_admin"].(bool); !ok || got != want {
					t.Errorf("result %v/%v: cap_sys_admin %v, want %v", r["loader"], r["filters"], r["cap_sys_admin"], want)
				}
			}
			if len(raw.Fits) != 2 {
				t.Fatalf("%d fits, want 2", len(raw.Fits))
			}
			for _, f := range raw.Fits {
				if _, ok := f["placement_sd_ns"]; !ok || f["loader"] == nil {
					t.Errorf("fit %v: placement_sd_ns or loader missing", f)
				}
			}
			if len(raw.LoaderDiffs) != 1 {
				t.Fatalf("%d loader diffs, want 1", len(raw.LoaderDiffs))
			}
			var text bytes.Buffer
			if err := WriteText(&text, d, TextOptions{Explain: true}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, text.String())
				}
			}
		})
	}
}

// TestCompareLoaders: compare pairs cells and fits by variant and loader,
// so a --loader both result compares with another one loader by loader.
func TestCompareLoaders(t *testing.T) {
	a, b := loaderDoc(t, 0, "Not affected"), loaderDoc(t, 8, "SW loop")
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Missing) != 0 || len(c.Cells) != 14 {
		t.Fatalf("%d cells compared, missing %v; want 14 and none", len(c.Cells), c.Missing)
	}
	perFilter := map[string]float64{}
	for _, f := range c.Fits {
		if f.Term == "per_filter" {
			perFilter[f.Variant] = f.Ns - f.BaseNs
		}
	}
	if d := perFilter["defeat/unprivileged"]; d < 7 || d > 9 {
		t.Errorf("unprivileged per-filter change %.2f, want about 8", d)
	}
	if d := perFilter["defeat/privileged"]; d < -1 || d > 1 {
		t.Errorf("privileged per-filter change %.2f, want about 0", d)
	}
}

// TestPlacementClauseZero: a between-placement SD estimated at 0 (the
// moment estimate came out negative) is reported as not separable from
// the noise, never as "moves the per-filter cost by ±0.0 ns".
func TestPlacementClauseZero(t *testing.T) {
	d := &document.Document{Config: document.Config{Placement: "random", PadMin: 0, PadMax: 16}}
	tests := []struct {
		sd   float64
		want string
	}{
		{0, "not separable from the noise between children"},
		{4.1, "placement moves the per-filter cost by ±4.10 ns"},
	}
	for _, tt := range tests {
		c, _ := placementClause(d, &document.Fit{Placements: 17, PlacementSDNs: tt.sd})
		got := c.Text()
		if !strings.Contains(got, tt.want) || (tt.sd == 0 && strings.Contains(got, "±0.0")) {
			t.Errorf("sd %v: %q, want it to contain %q", tt.sd, got, tt.want)
		}
	}
}

// TestSegmentClause: a run cut into time segments says how far they put
// the per-filter cost apart and that the CI includes it; a short run, or
// an undefined spread, says nothing.
func TestSegmentClause(t *testing.T) {
	tests := []struct {
		segments int
		sd       float64
		want     string
	}{
		{4, 2.5, "the run's 4 consecutive parts, each fitted alone, put the per-filter cost ±2.50 ns apart (SD); the CI is at least the t interval of their mean"},
		{0, math.NaN(), ""},
		{4, math.NaN(), ""},
	}
	for _, tt := range tests {
		c, _ := segmentClause(&document.Fit{Segments: tt.segments, SegmentSDNs: tt.sd})
		got := c.Text()
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("segments %d, SD %v: %q, want %q", tt.segments, tt.sd, got, tt.want)
		}
	}
}

// TestTimeUnit: whole commands (baselines of milliseconds) read in ms in
// the sentences, syscall loops stay in ns.
func TestTimeUnit(t *testing.T) {
	for _, tt := range []struct {
		base float64
		want string
	}{{300, "ns"}, {2e4, "µs"}, {1.4e8, "ms"}} {
		if got := unitFor(tt.base).name; got != tt.want {
			t.Errorf("unitFor(%v) = %s, want %s", tt.base, got, tt.want)
		}
	}
	fit := document.Fit{BaselineNs: 1.4e8, PerFilterNs: 1.88e6, PerFilterCILowNs: 1.19e6, PerFilterCIHighNs: 2.57e6, N: 40}
	if got, want := perFilterConclusion(fit, 0.95, 8).Text(), "each filter adds 1.88 ms per op (95% CI [1.19, 2.57])"; !strings.Contains(got, want) {
		t.Errorf("perFilterConclusion = %q, want it to contain %q", got, want)
	}
	fit = document.Fit{BaselineNs: 300, PerFilterNs: 40.5, PerFilterCILowNs: 38.2, PerFilterCIHighNs: 42.7, N: 40}
	if got, want := perFilterConclusion(fit, 0.95, 8).Text(), "each filter adds 40.5 ns per op (95% CI [38.2, 42.7])"; !strings.Contains(got, want) {
		t.Errorf("perFilterConclusion = %q, want it to contain %q", got, want)
	}
}

// TestRelDigits: three decimals unless the interval would print as one
// number; at most six.
func TestRelDigits(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		want   int
	}{{0.036, 0.051, 3}, {-0.0011, 0.0002, 4}, {-0.00004, 0.00005, 6}, {0, 1e-9, 6}, {math.NaN(), 0.1, 3}, {0.01, 0.02, 3}} {
		if got := relDigits(tt.lo, tt.hi); got != tt.want {
			t.Errorf("relDigits(%v, %v) = %d, want %d", tt.lo, tt.hi, got, tt.want)
		}
	}
	f := document.Fit{Paired: true, PerFilterRel: -0.0001, PerFilterRelCILow: -0.0011, PerFilterRelCIHigh: 0.0002}
	if c, ci := relCells(f); c != "-0.0001x" || ci != "[-0.0011, 0.0002]" {
		t.Errorf("relCells = %q %q, want -0.0001x [-0.0011, 0.0002]", c, ci)
	}
}
