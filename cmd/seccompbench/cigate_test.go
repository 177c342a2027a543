package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// asCLIEnv, set to 1, makes the test binary act as the seccompbench CLI
// (TestMain), so a test can run a shell script against it.
const asCLIEnv = "SECCOMPBENCH_TEST_AS_CLI"

// TestCIGateScript runs deploy/ci/budget-gate.sh, the script
// docs/ci-gate.md shows, with this test binary as seccompbench on
// /bin/true: a budget of 100 ms per run (thousands of times what one
// filter adds to /bin/true) decides within and exits 0, writing the
// Markdown with the verdict first and the JSON budget object; the
// usage check exits 2. The doc must show the script and the workflow
// exactly as committed.
func TestCIGateScript(t *testing.T) {
	if testing.Short() {
		t.Skip("measures (a few seconds)")
	}
	for _, tool := range []string{"sh", "true", "head"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not in PATH", tool)
		}
	}
	doc, err := os.ReadFile("../../docs/ci-gate.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"budget-gate.sh", "budget-gate.yml"} {
		b, err := os.ReadFile("../../deploy/ci/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(b)) {
			t.Errorf("docs/ci-gate.md does not show deploy/ci/%s as committed", f)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../deploy/ci/budget-gate.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gate := func(args ...string) (string, int) {
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), asCLIEnv+"=1", "SECCOMPBENCH="+self, "MAX_TIME=30s")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, rc := gate("default", "2%"); rc != 2 {
		t.Errorf("no command: exit %d, want 2:\n%s", rc, out)
	}
	out, rc := gate("default", "100ms", "--", "true")
	if rc != 0 || !strings.Contains(out, "budget gate: within 100ms") {
		t.Fatalf("exit %d, want 0 (within):\n%s", rc, out)
	}
	md, err := os.ReadFile(filepath.Join(dir, "budget.md"))
	if err != nil || !strings.Contains(string(md), "**[budget](docs/reading-results.md#budget)**: within 100 ms:") {
		t.Errorf("budget.md (%v) has no verdict line:\n%.600s", err, md)
	}
	var res struct {
		Budget *struct {
			Verdict   string  `json:"verdict"`
			Budget    float64 `json:"budget"`
			Unit      string  `json:"unit"`
			Upper     float64 `json:"upper"`
			DecidedBy string  `json:"decided_by"`
		} `json:"budget"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "budget.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil || res.Budget == nil || res.Budget.Verdict != "within" ||
		res.Budget.Budget != 1e8 || res.Budget.Unit != "ns" || !(res.Budget.Upper < 1e8) || res.Budget.DecidedBy == "" {
		t.Errorf("budget.json: %+v, %v", res.Budget, err)
	}
}
