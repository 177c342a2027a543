package systemd

import (
	"os"
	"strings"
	"testing"
)

// TestOtherEffectsCoverEveryDirective checks that each directive the model
// installs filters for is either seccomp-only or has its other effects
// written down, never both and never neither.
func TestOtherEffectsCoverEveryDirective(t *testing.T) {
	data, err := os.ReadFile("../../testdata/policies/hardened.service")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseUnit("hardened.service", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Directives) < 10 {
		t.Fatalf("hardened.service models only %d directives", len(st.Directives))
	}
	for _, d := range st.Directives {
		if SeccompOnly(d.Name) == (OtherEffects(d.Name) != "") {
			t.Errorf("%s: SeccompOnly %v, OtherEffects %q: want exactly one", d.Name, SeccompOnly(d.Name), OtherEffects(d.Name))
		}
	}
	if e := OtherEffects("PrivateDevices"); !strings.Contains(e, "/dev") || !strings.Contains(e, "CAP_MKNOD") {
		t.Errorf("PrivateDevices effects %q lack the private /dev or CAP_MKNOD", e)
	}
}

func TestSettingsDiff(t *testing.T) {
	parse := func(unit string, dropIns ...File) *Stack {
		t.Helper()
		st, err := ParseUnit("u.service", []byte(unit), Options{DropIns: dropIns})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a := parse("[Service]\nProtectSystem=strict\nPrivateDevices=yes\nSystemCallFilter=@system-service\nUser=a\nReadOnlyPaths=/x\n[Install]\nWantedBy=multi-user.target\n")
	b := parse("[Service]\nPrivateDevices=no\nSystemCallFilter=@system-service @mount\nUser=b\nReadOnlyPaths=/x\n[Install]\nWantedBy=default.target\n",
		File{Name: "u.service.d/o.conf", Data: []byte("[Service]\nUser=a\nReadOnlyPaths=\nReadOnlyPaths=/y\n")})
	got := SettingsDiff(a, b)
	var keys []string
	for _, d := range got {
		keys = append(keys, d.Key)
	}
	// SystemCallFilter= is seccomp-only, User= ends equal after the
	// drop-in, [Install] is no exec section.
	if strings.Join(keys, " ") != "PrivateDevices ProtectSystem ReadOnlyPaths" {
		t.Fatalf("differing keys %v, want PrivateDevices ProtectSystem ReadOnlyPaths", keys)
	}
	if got[0].A != "yes" || got[0].B != "no" || got[0].Effects == "" {
		t.Errorf("PrivateDevices diff %+v, want yes/no with its effects", got[0])
	}
	if got[1].A != "strict" || !got[1].ASet || got[1].BSet || got[1].Effects != "" {
		t.Errorf("ProtectSystem diff %+v, want strict vs unset, no filter effects", got[1])
	}
	if got[2].A != "/x" || got[2].B != "/y" || !got[2].ASet || !got[2].BSet {
		t.Errorf("ReadOnlyPaths diff %+v, want /x vs /y (the drop-in reset it)", got[2])
	}
}

// TestSettingsDiffEmpty: an empty assignment is a value of its own
// (CapabilityBoundingSet= is the empty set), not the same as never set.
func TestSettingsDiffEmpty(t *testing.T) {
	a, err := ParseUnit("a.service", []byte("[Service]\nCapabilityBoundingSet=\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseUnit("b.service", []byte("[Service]\nExecStart=/bin/true\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := SettingsDiff(a, b)
	if len(got) != 2 || got[0].Key != "CapabilityBoundingSet" || !got[0].ASet || got[0].BSet || got[0].A != "" {
		t.Errorf("diff %+v, want CapabilityBoundingSet empty in A and unset in B, then ExecStart", got)
	}
}
