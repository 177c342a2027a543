package main

import (
	"bytes"
	"strings"
	"testing"
)

// --ab takes a design name, needs --command, and containers take the
// children design only: each mistake is a usage error (exit 2) that says
// what is wrong, before anything is measured.
func TestEstimateABFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"estimate", "default", "--ab", "abba", "--command", "--", "true"}, `--ab: unknown A/B design "abba": want children, pairs or duet`},
		{[]string{"estimate", "default", "--profile", "x.csv", "--ab", "duet"}, "--ab and --ab-time need --command"},
		{[]string{"estimate", "default", "--ab-time", "-1s", "--command", "--", "true"}, "--ab-time: -1s is not a positive duration"},
		{[]string{"estimate", "default", "--ab-time", "0", "--command", "--", "true"}, "--ab-time: 0s is not a positive duration"},
		{[]string{"estimate", "default", "--cpu", "4096", "--command", "--", "true"}, "--cpu: CPU 4096 is not one this process may run on"},
		{[]string{"estimate", "default", "--cpu", "-3", "--profile", "x.csv"}, "--cpu: -3 is not a CPU number"},
		{[]string{"estimate", "../../testdata/policies/docker-default.json", "--rootfs", "/", "--ab", "pairs", "--command", "--", "true"}, "--ab pairs: containers (--bundle, --rootfs) are measured with --ab children only"},
	} {
		var out, errb bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("seccompbench %s: exit %d, stderr %q; want exit 2 with %q", strings.Join(tt.args, " "), code, errb.String(), tt.want)
		}
	}
}
