package exporter

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestDashboardNamesExported: every seccompbench_* metric that a query of
// deploy/dashboard.json (the Grafana dashboard) references is one the
// exporter serves, after a window, so the dashboard cannot drift from the
// names.
func TestDashboardNamesExported(t *testing.T) {
	data, err := os.ReadFile("../../../../deploy/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("deploy/dashboard.json: %v", err)
	}
	e, reg := newTest(5)
	e.Update(window(proc(1, 1, 0.5, 1, 1)))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, mf := range mfs {
		served[mf.GetName()] = true
	}
	name := regexp.MustCompile(`seccompbench_[a-z_]+`)
	n := 0
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, m := range name.FindAllString(q.Expr, -1) {
				n++
				if !served[m] {
					t.Errorf("panel %q queries %s, which the exporter does not serve", p.Title, m)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no query references a seccompbench metric")
	}
}
