package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// sameStack fails unless a and b hold the same filters, instruction for
// instruction, in the same order.
func sameStack(t *testing.T, a, b *filters.Source) {
	t.Helper()
	if len(a.Filters) != len(b.Filters) {
		t.Fatalf("%s: %d filters, %s: %d", a.Name, len(a.Filters), b.Name, len(b.Filters))
	}
	for i := range a.Filters {
		if !slices.Equal(a.Filters[i].Insns, b.Filters[i].Insns) {
			t.Errorf("filter %d differs: %s vs %s", i, a.Filters[i].Name, b.Filters[i].Name)
		}
	}
}

// TestDropInsBesideUnit: a unit with an override.conf beside it (what
// `systemctl edit` writes) compiles to the stack of the unit merged as
// `systemctl cat` shows it, and to the stack of the same unit resolved by
// hand; the drop-in's empty assignments reset the lists.
func TestDropInsBesideUnit(t *testing.T) {
	unit := "testdata/dropins/logind/systemd-logind.service"
	got, err := formats.Load(unit, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := formats.LoadData(unit, mustRead(t, unit), formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Filters) == len(got.Filters) {
		t.Fatalf("the drop-in changed nothing: %d filters either way", len(got.Filters))
	}
	cat := append(mustRead(t, unit), '\n')
	cat = append(cat, mustRead(t, "testdata/dropins/logind/systemd-logind.service.d/override.conf")...)
	merged, err := formats.LoadData("systemctl-cat.service", cat, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameStack(t, got, merged)
	resolved, err := formats.Load("testdata/dropins/resolved/systemd-logind.service", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameStack(t, got, resolved)
	// MemoryDenyWriteExecute=no in the drop-in removes its filters.
	for _, p := range got.Parts {
		if p.Name == "MemoryDenyWriteExecute" {
			t.Errorf("MemoryDenyWriteExecute still installs %d filters after the drop-in's =no", p.Count)
		}
	}
}

// TestReadUnitProvenance: ReadUnit returns only *.conf drop-ins, and the
// modeled stack says which file contributed which directive line.
func TestReadUnitProvenance(t *testing.T) {
	name, data, dropIns, err := formats.ReadUnit("testdata/dropins/logind/systemd-logind.service", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(dropIns) != 1 || filepath.Base(dropIns[0].Name) != "override.conf" {
		t.Fatalf("drop-ins %v, want override.conf only (README.txt is no .conf)", names(dropIns))
	}
	st, err := systemd.ParseUnit(name, data, systemd.Options{DropIns: dropIns})
	if err != nil {
		t.Fatal(err)
	}
	var reset bool
	for _, a := range st.Assignments {
		if a.Key == "SystemCallFilter" && a.Value == "" {
			reset = a.File == dropIns[0].Name && a.Line == 4
		}
	}
	if !reset {
		t.Errorf("no SystemCallFilter= reset at %s:4 in %+v", dropIns[0].Name, st.Assignments)
	}
	if len(st.Files) != 2 {
		t.Errorf("Files = %v", st.Files)
	}
}

// TestReadUnitRoot: under --root, drop-ins of the unit's, its dash
// prefix's and its type's directories across etc/, run/ and usr/lib/ are
// applied sorted by file name; etc/'s 10-a.conf masks usr/lib's, and
// etc/'s /dev/null link masks 30-x.conf. The stack equals that of the
// merge written out by hand.
func TestReadUnitRoot(t *testing.T) {
	root := "testdata/dropins/root"
	name, _, dropIns, err := formats.ReadUnit("foo-bar.service", root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "usr/lib/systemd/system/foo-bar.service"); name != want {
		t.Errorf("unit %s, want %s", name, want)
	}
	want := []string{
		root + "/usr/lib/systemd/system/service.d/01-early-reset.conf",
		root + "/run/systemd/system/foo-.service.d/05-prefix.conf",
		root + "/etc/systemd/system/foo-bar.service.d/10-a.conf",
		root + "/usr/lib/systemd/system/service.d/20-type.conf",
	}
	if got := names(dropIns); !slices.Equal(got, want) {
		t.Errorf("drop-ins\n%v\nwant\n%v", got, want)
	}
	got, err := formats.Load("foo-bar.service", formats.OpenOptions{SystemdRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := formats.Load(root+"/expected.service", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameStack(t, got, exp)
	if _, _, _, err := formats.ReadUnit("masked.service", root); !errors.Is(err, formats.ErrMaskedUnit) {
		t.Errorf("masked.service: err %v, want ErrMaskedUnit", err)
	}
}

// TestDropInDirNames follows systemd.unit(5)'s examples.
func TestDropInDirNames(t *testing.T) {
	for unit, want := range map[string][]string{
		"foo-bar-baz.service": {"foo-bar-baz.service.d", "foo-bar-.service.d", "foo-.service.d", "service.d"},
		"getty@tty1.service":  {"getty@tty1.service.d", "getty@.service.d", "service.d"},
		"sshd.socket":         {"sshd.socket.d", "socket.d"},
		"noext":               nil,
	} {
		if got := systemd.DropInDirNames(unit); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", unit, got, want)
		}
	}
}

func names(fs []systemd.File) []string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return n
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
