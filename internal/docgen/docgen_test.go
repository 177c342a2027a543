package docgen

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	tests := []struct {
		name, a, b string
	}{
		{"numbers and units", "each filter adds 29.4 ns per op (95% CI [28.93, 29.90])", "each filter adds -0.04 µs per op (90% CI [-1, +2.5])"},
		{"aligned columns", "  on        1  10       132.6", "  on 16 10 1064.2"},
		{"paths", "wrote /tmp/r.json (json)", "wrote /var/tmp/x/y.json (json)"},
		{"hashes", "sha256 329fcc22bbec6873", "sha256 f5d06cc00a24fa3e"},
		{"kernel and cpu", "kernel 6.18.44-fc-v857, AMD EPYC, 2 CPUs", "kernel 6.8.0-45-generic, Intel(R) Xeon(R) CPU @ 2.20GHz, 16 CPUs"},
		{"time", "created 2026-12-01T10:00:00Z", "created 2025-01-02T23:59:59.123+01:00"},
		{"durations", "10 blocks in 5.1 s", "10 blocks in 120ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := Mask(tt.a), Mask(tt.b); got != want {
				t.Errorf("Mask(%q) = %q, Mask(%q) = %q; want equal", tt.a, got, tt.b, want)
			}
		})
	}
	// What masking must keep apart: words, verdicts, a changed layout.
	for _, pair := range [][2]string{
		{"verdict ALLOW", "verdict ERRNO(1)"},
		{"0 errors, 0 warnings", "0 errors, 0 warnings, 1 info"},
		{"10 samples", "10 s"},
		{"on 1 10 132.6", "on 1 10 132.6 [1, 2]"},
	} {
		if Mask(pair[0]) == Mask(pair[1]) {
			t.Errorf("Mask makes %q and %q equal (%q)", pair[0], pair[1], Mask(pair[0]))
		}
	}
}

func TestParseAndRewrite(t *testing.T) {
	src := "text\n```console\n$ a\nold a\n$ b\n```\n<!-- mkdocs: kernel -->\n```console\n$ k\nold k\n```\n<!-- mkdocs: manual (a PID) -->\n```console\n$ m\n```\n"
	blocks, err := Parse("x.md", src)
	if err != nil {
		t.Fatal(err)
	}
	var modes []string
	for _, b := range blocks {
		modes = append(modes, b.Mode.String())
	}
	if got, want := strings.Join(modes, ","), "checked,kernel,manual"; got != want {
		t.Errorf("modes = %s, want %s", got, want)
	}
	if got := blocks[0].Commands; len(got) != 2 || got[0].Output != "old a\n" || got[1].Output != "" {
		t.Errorf("commands = %+v, want a with its output and b without", got)
	}
	out, err := Rewrite("x.md", src, func(b Block) bool { return b.Mode == Checked },
		func(c string) (string, error) { return "new " + c, nil })
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "$ a\nold a\n$ b\n", "$ a\nnew a\n$ b\nnew b\n", 1)
	if out != want {
		t.Errorf("Rewrite =\n%s\nwant\n%s", out, want)
	}
	if _, err := Parse("y.md", "```console\n$ a\n"); err == nil {
		t.Error("Parse of an unclosed block: no error")
	}
	if _, err := Parse("y.md", "<!-- mkdocs: sometimes -->\n```console\n```\n"); err == nil {
		t.Error("Parse of an unknown mode: no error")
	}
}
