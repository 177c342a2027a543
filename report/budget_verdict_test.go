package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

func TestBudgetVerdictText(t *testing.T) {
	within := document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictWithin, Budget: 2, Unit: "%", Estimate: 0.41,
		Lower: -0.2, Upper: 0.63, Confidence: 0.95, Rounds: 14, N: 14, Pairs: 38, ElapsedS: 14.2, DecidedBy: "wall"})
	if got, want := BudgetText(within), "within 2%: +0.41% [upper 0.63%] after 14 s, 14 rounds, 38 pairs, 95% one-sided; wall time per run decided"; got != want {
		t.Errorf("within:\n got %q\nwant %q", got, want)
	}
	over := document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictOver, Budget: 50, Unit: "ns", Estimate: 1200,
		Lower: 900, Upper: 1500, Confidence: 0.99, Rounds: 9, N: 9, ElapsedS: 3, DecidedBy: "cpu"})
	if got := BudgetText(over); !strings.HasPrefix(got, "over 50 ns: +1.20 µs [lower 900 ns] after 3 s, 9 rounds, 99% one-sided; CPU time") {
		t.Errorf("over: %q", got)
	}
	und := document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictUndecided, Budget: 2, Unit: "%", Estimate: 1.9,
		Lower: math.Inf(-1), Upper: math.Inf(1), Confidence: 0.95, Rounds: 2, N: 4, ElapsedS: 60, NeedN: 400, NeedS: 6000, DecidedBy: "wall"})
	got := BudgetText(und)
	for _, w := range []string{"undecided 2%", "[n/a, n/a]", "400 children (6000 s)", "Undecided is not within"} {
		if !strings.Contains(got, w) {
			t.Errorf("undecided %q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "no significant") {
		t.Errorf("undecided worded as a test result: %q", got)
	}
	// JSON: the object the docs name, infinite bounds as null, and back.
	b, err := json.Marshal(und)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"verdict":"undecided"`, `"lower":null`, `"upper":null`, `"elapsed_s":60`, `"decided_by":"wall"`, `"unit":"%"`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("JSON %s lacks %s", b, k)
		}
	}
	var back document.BudgetVerdict
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(back.Lower) || back.NeedN != 400 {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestBudgetHeadlineFirst(t *testing.T) {
	d := &document.Document{Budget: document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictWithin, Budget: 5e6, Unit: "ns",
		Estimate: 1e5, Upper: 2e5, Confidence: 0.95, Rounds: 3, N: 6, ElapsedS: 2, DecidedBy: "wall"})}
	d.Config.Confidence = 0.95
	lines := RunHeadline(d)
	if lines[0].Label != "budget" || !strings.HasPrefix(lines[0].Text, "within 5 ms: +100 µs [upper 200 µs]") {
		t.Errorf("first headline line %+v", lines[0])
	}
	if BudgetHeadline(nil) != nil {
		t.Error("a headline line without a budget")
	}
}

// TestBudgetHeadlineFits: with the longest verdict (undecided, with its
// projection) on top, every fixture's text headline still fits in
// MaxHeadlineLines and starts with the verdict; Markdown has it first too.
func TestBudgetHeadlineFits(t *testing.T) {
	v := document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictUndecided, Budget: 2, Unit: "%", Estimate: 1.93,
		Lower: 1.1, Upper: 2.8, Confidence: 0.95, Rounds: 40, N: 40, Pairs: 1200, ElapsedS: 60, NeedN: 1400, NeedS: 2100, DecidedBy: "wall"})
	for name, d := range headlineFixtures(t) {
		d.Budget = v
		var b bytes.Buffer
		if err := WriteTable(&b, d); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(b.String(), "\n\n")
		lines := strings.Split(head, "\n")
		if len(lines) > MaxHeadlineLines || !strings.HasPrefix(head, "budget: undecided 2%") {
			t.Errorf("%s: headline of %d lines:\n%s", name, len(lines), head)
		}
		// The verdict is one line, however long: a CI step reads only
		// the first line. It was wrapped at TextWidth.
		if want := "budget: " + shortSentencesAfter("budget: ", BudgetText(v)); lines[0] != want || len(lines) < 2 || !strings.HasPrefix(lines[1], "policy: ") {
			t.Errorf("%s: verdict line %q, then %q; want the whole verdict %q on the first line", name, lines[0], lines[1:min(2, len(lines))], want)
		}
		b.Reset()
		if err := WriteMarkdown(&b, d); err != nil {
			t.Fatal(err)
		}
		if _, after, _ := strings.Cut(b.String(), "## Answer\n\n"); !strings.HasPrefix(after, "- **[budget](docs/reading-results.md#budget)**: undecided 2%") {
			t.Errorf("%s: Markdown answer starts %.80q", name, after)
		}
		b.Reset()
		if err := WriteHTML(&b, d, HTMLCharts{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "<strong>budget</strong>: undecided 2%") {
			t.Errorf("%s: the HTML page has no budget verdict", name)
		}
	}
}

// TestBracketBudgetText: a verdict on estimate's profile-only bracket
// names the bracket, and an undecided one says what would decide it.
func TestBracketBudgetText(t *testing.T) {
	for _, c := range []struct {
		verdict string
		budget  float64
		want    []string
	}{
		{"within", 5e6, []string{"within 5 ms: bracket [835 µs, 2.98 ms] from the profile, no run"}},
		{"over", 500e3, []string{"over 500 µs: bracket [835 µs, 2.98 ms]"}},
		{"undecided", 1e6, []string{"undecided 1 ms: bracket", "run the program (--command) to decide", "Undecided is not within"}},
	} {
		b := &document.BudgetVerdict{Verdict: c.verdict, Budget: c.budget, Unit: "ns", Lower: 835e3, Upper: 2.98e6, Estimate: 1.9e6, Confidence: 0.95, DecidedBy: document.BudgetByBracket}
		got := BudgetText(b)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.verdict, got, w)
			}
		}
	}
}

// TestBudgetBasisNote: a run without a 0-filter cell decides its budget
// on the children's paired baselines while its table's overhead columns
// are n/a; the report says so in one note, in text and Markdown, naming
// the pairs. With the 0-filter cells there is nothing to reconcile.
func TestBudgetBasisNote(t *testing.T) {
	d := headlineFixtures(t)["fixture"]
	d.Budget = document.NewBudgetVerdict(stats.Decision{Verdict: stats.VerdictWithin, Budget: 50, Unit: "%", Estimate: 5.19,
		Upper: 9.91, Confidence: 0.95, Rounds: 8, N: 8, Pairs: 147, ElapsedS: 3, DecidedBy: "wall", Variant: "defeat"})
	var b bytes.Buffer
	if err := WriteTable(&b, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "budget verdict is from") {
		t.Errorf("a note beside 0-filter cells:\n%s", b.String())
	}
	var kept []document.CellResult
	for _, r := range d.Results {
		if r.Filters > 0 {
			kept = append(kept, r)
		}
	}
	d.Results = kept
	b.Reset()
	if err := WriteTable(&b, d); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(b.String()), " ")
	if !strings.Contains(flat, "note: the budget verdict is from 147 paired runs") || !strings.Contains(flat, "add 0 to --filters") {
		t.Errorf("no note on the budget's basis:\n%s", b.String())
	}
	b.Reset()
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "the budget verdict is from 147 paired runs") {
		t.Errorf("Markdown has no note on the budget's basis")
	}
}
