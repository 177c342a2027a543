package filters

import (
	"testing"

	elarch "github.com/elastic/go-seccomp-bpf/arch"
)

// TestX32NamesPreferX32Numbers: names the source table lists twice for x32
// map to their x32 number (512-547), every time the table is built, as in
// libseccomp's x32 table and the kernel's (syscall_64.tbl ABI "x32").
func TestX32NamesPreferX32Numbers(t *testing.T) {
	tests := []struct {
		name string
		want int
	}{
		{"rt_sigaction", 512},
		{"ioctl", 514},
		{"readv", 515},
		{"execve", 520},
		{"ptrace", 521},
		{"preadv2", 546},
		{"pwritev2", 547},
		{"read", 0}, // listed once
	}
	for _, tt := range tests {
		if got := ArchX32.Names[tt.name]; got != tt.want {
			t.Errorf("ArchX32.Names[%q] = %d, want %d", tt.name, got, tt.want)
		}
	}
	// The source table's duplicates: every one resolves to its highest
	// number, however often the (map-ordered) table is rebuilt.
	count := map[string][]int{}
	for n, s := range ArchX32.Numbers {
		count[s] = append(count[s], n)
	}
	dups := 0
	for s, ns := range count {
		if len(ns) < 2 {
			continue
		}
		dups++
		hi := max(ns[0], ns[1])
		if hi < 512 {
			t.Errorf("%s listed at %v: want one number in 512-547", s, ns)
		}
		for i := 0; i < 20; i++ {
			a := newArch("x32", elarch.X32, 0, false)
			if got := a.Names[s]; got != hi {
				t.Fatalf("rebuild %d: Names[%q] = %d, want %d", i, s, got, hi)
			}
		}
	}
	if dups != 36 {
		t.Errorf("%d names listed twice, want 36 (the x32 entries 512-547)", dups)
	}
}

// TestX32LacksX86_64OnlySyscalls: entries of syscall_64.tbl with ABI "64"
// and no x32 counterpart are not x32 syscalls (the kernel returns ENOSYS,
// libseccomp does not know them for x32), while x86_64 keeps them.
func TestX32LacksX86_64OnlySyscalls(t *testing.T) {
	for _, name := range []string{"set_thread_area", "get_thread_area", "epoll_wait_old", "uselib", "map_shadow_stack", "uretprobe"} {
		if n, ok := ArchX32.Lookup(name); ok {
			t.Errorf("x32 has %s (nr %d), want none", name, n)
		}
		if _, ok := ArchX86_64.Lookup(name); !ok {
			t.Errorf("x86_64 lacks %s", name)
		}
	}
	if name, ok := ArchX32.Numbers[205]; ok {
		t.Errorf("x32 number 205 is named %s, want no name", name)
	}
	// Common syscalls stay.
	if n, ok := ArchX32.Lookup("read"); !ok || n != 0 {
		t.Errorf("x32 read = %d, %v; want 0", n, ok)
	}
}
