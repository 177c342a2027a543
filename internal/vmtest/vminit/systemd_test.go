package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestSystemdRefusalText: the guest recognises the model's refusal of a
// unit systemd fails with EEXIST by its text, which must stay the
// error's.
func TestSystemdRefusalText(t *testing.T) {
	if got := systemd.ErrHandoffWrite.Error(); got != systemdRefusal {
		t.Errorf("systemd.ErrHandoffWrite is %q, the guest looks for %q", got, systemdRefusal)
	}
}

func TestParseCheckArgs(t *testing.T) {
	o, units, err := parseCheckArgs([]string{
		"-systemd-version", "257", "-alt-lib", "host-libseccomp-2.5.4=/vmtest/host-libseccomp", "-alt-native", "native",
		"probe.service=probe-daemon", "vm-logind.service=logind-probe",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := checkOpts{version: "257", alts: []altModel{
		{label: "host-libseccomp-2.5.4", libDir: "/vmtest/host-libseccomp", compiler: "libseccomp"},
		{label: "native", compiler: "native"},
	}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("options %+v, want %+v", o, want)
	}
	if !reflect.DeepEqual(units, []string{"probe.service=probe-daemon", "vm-logind.service=logind-probe"}) {
		t.Errorf("units %q", units)
	}
	for _, bad := range [][]string{{"-systemd-version"}, {"-alt-lib", "nodir"}, {"-bogus", "x"}} {
		if _, _, err := parseCheckArgs(bad); err == nil {
			t.Errorf("parseCheckArgs(%q) succeeded", bad)
		}
	}
}

func TestTextArgs(t *testing.T) {
	got := textArgs([]string{"compile", "--systemd-stack", "/etc/systemd/system/a.service", "--compiler", "libseccomp", "--save", "/tmp/m", "--format", "json", "-q", "--systemd-version", "257"})
	want := "compile --systemd-stack /etc/systemd/system/a.service --compiler libseccomp -q --systemd-version 257"
	if strings.Join(got, " ") != want {
		t.Errorf("textArgs = %q, want %q", strings.Join(got, " "), want)
	}
}
