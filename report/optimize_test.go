package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestWriteBuildSummary(t *testing.T) {
	many := make([]document.CacheChange, 14)
	for i := range many {
		many[i] = document.CacheChange{Arch: "x86_64", Nr: 400 + i}
	}
	base := document.BuildSummary{Command: "merge", Filters: 3, InstructionsBefore: 30, Instructions: 12, Equivalent: true,
		InputClasses: 7, MeanPathBefore: 9, MeanPathAfter: 4.5}
	tests := []struct {
		name   string
		change func(*document.BuildSummary)
		want   []string
		absent []string
	}{
		{"merge", func(*document.BuildSummary) {}, []string{
			"m: 3 filter(s), 30 instructions -> 1 filter, 12 instructions; proven equivalent over 7 input classes\n",
			"(args 0): 9.00 -> 4.50 instructions\n",
			"action cache lost (cached before, not after): none\n",
			"action cache gained: none\n",
		}, []string{"profile-weighted", "longer path"}},
		{"names cut after 12", func(s *document.BuildSummary) {
			s.CacheLost = []document.CacheChange{{Arch: "i386", Name: "getpid", Nr: 20}}
			s.CacheGained = many
		}, []string{
			"action cache lost (cached before, not after) (1): i386/getpid\n",
			"action cache gained (14): x86_64/400 ", "x86_64/411 ... (14 in all)\n",
		}, []string{"x86_64/412"}},
		{"optimize with profile", func(s *document.BuildSummary) {
			s.Command, s.Profile, s.WeightedPathBefore, s.WeightedPathAfter = "optimize", "git.txt", 20, 3.25
		}, []string{"profile-weighted mean path (git.txt): 20.00 -> 3.25 instructions\n"}, []string{"longer path"}},
		{"optimize without profile", func(s *document.BuildSummary) {
			s.Command = "optimize"
			s.Longer = []document.CacheChange{{Arch: "x32", Name: "read", Nr: 0}}
		}, []string{"syscalls with a longer path than the input (1): x32/read\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := base
			tt.change(&sum)
			var b bytes.Buffer
			if err := WriteBuildSummary(&b, "m", &sum); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(got, w) {
					t.Errorf("summary has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestWriteBuildJSON(t *testing.T) {
	p := &filters.Program{Name: "merged", Insns: []bpf.RawInstruction{{Op: 0x20, K: 0}, {Op: 0x06, K: 0x7fff0000}}}
	sum := &document.BuildSummary{Command: "merge", Filters: 1, Instructions: 2, Equivalent: true,
		CacheLost: []document.CacheChange{}, CacheGained: []document.CacheChange{}}
	var b bytes.Buffer
	if err := WriteBuildJSON(&b, p, sum); err != nil {
		t.Fatal(err)
	}
	if sum.Program != nil {
		t.Error("WriteBuildJSON modified the summary")
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, b.String())
	}
	for key, want := range map[string]string{"command": "merge", "cache_lost": "[]", "cache_gained": "[]", "equivalent": "true"} {
		got, _ := json.Marshal(doc[key])
		if string(got) != want && string(got) != `"`+want+`"` {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	prog, _ := doc["program"].([]any)
	if len(prog) != 2 {
		t.Fatalf("program has %d instructions, want 2", len(prog))
	}
	if last, _ := prog[1].(map[string]any); last["k"] != float64(0x7fff0000) || !strings.HasPrefix(last["text"].(string), "ret") {
		t.Errorf("program[1] = %v", last)
	}
}

func TestWriteEquivText(t *testing.T) {
	a, b := document.EquivSide{Spec: "m.bpf", Filters: 1}, document.EquivSide{Spec: "u.service", Filters: 35}
	ce := &equiv.Counterexample{Arch: "x86_64", Nr: 39, Name: "getpid",
		A: equiv.OutcomeOf(0x7fff0000), B: equiv.OutcomeOf(0x00050001)}
	tests := []struct {
		name string
		res  equiv.Result
		want string
	}{
		{"equivalent", equiv.Result{Equivalent: true, Paths: 12},
			"equivalent: m.bpf (1 filter(s)) and u.service (35 filter(s)) agree on every input (12 input classes)\n"},
		{"different", equiv.Result{Counterexample: ce},
			"different: " + ce.String() + "\n  A = m.bpf, B = u.service\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			if err := WriteEquivText(&w, a, b, tt.res); err != nil {
				t.Fatal(err)
			}
			if got := w.String(); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
