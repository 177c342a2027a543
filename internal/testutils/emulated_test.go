package testutils

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEmulated(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"console=ttyAMA0 panic=-1 quiet loglevel=1 rdinit=/init seccompbench.accel=tcg\n", true},
		{"console=ttyS0 panic=-1 rdinit=/init seccompbench.accel=kvm\n", false},
		{"BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n", false},
		{"seccompbench.accel=tcgx\n", false},
	} {
		path := filepath.Join(t.TempDir(), "cmdline")
		if err := os.WriteFile(path, []byte(tc.cmdline), 0o644); err != nil {
			t.Fatal(err)
		}
		old := procCmdline
		procCmdline = path
		got := Emulated()
		procCmdline = old
		if got != tc.want {
			t.Errorf("Emulated() with /proc/cmdline %q = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
	procCmdline = filepath.Join(t.TempDir(), "absent")
	defer func() { procCmdline = "/proc/cmdline" }()
	if Emulated() {
		t.Error("Emulated() without a readable /proc/cmdline = true, want false")
	}
}
