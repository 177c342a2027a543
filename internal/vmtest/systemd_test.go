package main

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestProbeUnitModel checks that every directive of the systemd-as-init
// VM's probe unit is one the model installs filters for: 21 filters on
// x86_64 (7 directives × x86, x32, x86_64, SystemCallArchitectures= once,
// LockPersonality=, SystemCallLog= and SystemCallFilter= once each).
func TestProbeUnitModel(t *testing.T) {
	st, err := systemd.ParseUnit("probe.service", []byte(probeUnit), systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.Programs); got != 21 {
		t.Errorf("model installs %d filters, want 21", got)
	}
	for _, w := range st.Warnings {
		t.Errorf("warning: %s", w)
	}
	for _, u := range []string{checkUnit, vmtestTarget, probeUnit} {
		if !strings.Contains(u, "DefaultDependencies=no") {
			t.Errorf("unit without DefaultDependencies=no (the initramfs has no sysinit.target):\n%s", u)
		}
	}
}

func TestLddLine(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f19)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f1a)\n"
	var got []string
	for _, m := range lddLine.FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != "/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2" {
		t.Errorf("got %q", got)
	}
}
