package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInputsSayWhatApplies runs the commands on real inputs of the
// formats that compile through an OCI profile but are not OCI profiles:
// they must name the ABI their filters are for, follow the architecture a
// file names, lint every Firecracker thread, and never talk about
// capabilities.
func TestInputsSayWhatApplies(t *testing.T) {
	p := func(name string) string { return filepath.Join(policiesDir, name) }
	in := func(name string) string { return filepath.Join("testdata", "inputs", name) }
	mj := func(name string) string {
		return filepath.Join("..", "..", "filters", "minijail", "testdata", "real", name)
	}
	for _, tt := range []struct {
		name      string
		args      []string
		code      int
		want, not []string
	}{
		{"lxc says no caps", []string{"simulate", p("lxc.seccomp"), "--syscall", "kexec_load"}, 0,
			[]string{"abi       x86_64, i386, x32"}, []string{"capabilities", "oci "}},
		{"lxc lint says no caps", []string{"lint", p("lxc.seccomp")}, 0, nil, []string{"oci-resolution", "x32-unhandled"}},
		{"minijail lint", []string{"lint", p("chrome-renderer.policy")}, 3, nil, []string{"oci-resolution", "capabilities"}},
		{"firecracker lint every thread", []string{"lint", p("firecracker-vmm.json")}, 3,
			[]string{"thread vmm:", "thread api:", "thread vcpu:", "filter 0 (vcpu)"}, []string{"oci-resolution"}},
		{"firecracker lint json needs a thread", []string{"lint", p("firecracker-vmm.json"), "--format", "json"}, 2,
			[]string{"--thread vmm|api|vcpu", "one stack"}, nil},
		{"aarch64 firecracker", []string{"simulate", in("aarch64-unknown-linux-musl.json"), "--thread", "vcpu", "--syscall", "write"}, 0,
			[]string{"simulating aarch64 calls", "abi       aarch64", "write (aarch64 nr 64)", "verdict   ALLOW"}, nil},
		{"aarch64 firecracker compile", []string{"compile", in("aarch64-unknown-linux-musl.json"), "--thread", "api"}, 0,
			[]string{"; abi: aarch64", "AUDIT_ARCH_AARCH64"}, []string{"AUDIT_ARCH_X86_64"}},
		{"i386 minijail", []string{"simulate", mj("mediacodec-x86.policy"), "--syscall", "getuid32", "--minijail-toolchain", "android"}, 0,
			[]string{"simulating i386 calls", "abi       i386", "verdict   ALLOW", "_llseek is already filtered", "as --minijail-toolchain asks"}, nil},
		{"i386 minijail as ChromeOS reads it", []string{"simulate", mj("mediacodec-x86.policy"), "--syscall", "getuid32"}, 1,
			[]string{"refuses a syscall named twice", "--minijail-toolchain python"}, nil},
		{"crosvm repeats", []string{"simulate", mj("crosvm/seccomp/x86_64/block_device.policy"), "--syscall", "ioctl", "--args", "3,0x1277"}, 0,
			[]string{"verdict   ALLOW", "note: " + mj("crosvm/seccomp/x86_64/block_device.policy") + ": read as minijail's compile_seccomp_policy.py", "chosen from the file", "note: " + mj("crosvm/seccomp/x86_64/block_device.policy") + ":4:1: @include /usr/share/policy/crosvm/common_device.policy read from"},
			[]string{"ChromeOS's minijail refuses", "warning: "}},
		{"crosvm lint clone", []string{"lint", mj("crosvm/seccomp/x86_64/common_device.policy")}, 0, nil, []string{"clone is killed"}},
		{"arm64 lint", []string{"lint", mj("chromeos/daemon-arm64.policy")}, 0,
			[]string{"checked for aarch64 calls", "0 errors"}, []string{"exit_group is killed"}},
		{"arm private", []string{"simulate", mj("chromeos/renderer-arm.policy"), "--syscall", "set_tls", "--arch", "arm"}, 0,
			[]string{"verdict   ALLOW"}, nil},
		{"arm private by minijail's name", []string{"simulate", mj("chromeos/renderer-arm.policy"), "--syscall", "ARM_set_tls", "--arch", "arm"}, 0,
			[]string{"arm nr 983045", "verdict   ALLOW"}, nil},
		{"riscv64 minijail", []string{"simulate", mj("chromeos/daemon-riscv64.policy"), "--syscall", "riscv_flush_icache"}, 0,
			[]string{"abi       riscv64", "riscv64 nr 259", "verdict   ALLOW"}, []string{"abi       x86_64"}},
		{"aosp include", []string{"simulate", mj("aosp/mediaextractor/seccomp_policy/mediaextractor-x86.policy"), "--syscall", "exit_group"}, 1,
			[]string{"--include-path DIR", "--include-root /system/etc/seccomp_policy=DIR"}, nil},
		{"aosp include path", []string{"simulate", mj("aosp/mediaextractor/seccomp_policy/mediaextractor-x86.policy"), "--syscall", "exit_group",
			"--include-path", mj("aosp/debuggerd/seccomp_policy")}, 0, []string{"verdict   ALLOW", "Android's minijail"}, nil},
		{"i386 minijail named otherwise", []string{"simulate", "--format-in", "minijail", "-", "--arch", "i386", "--syscall", "mmap2"}, 0,
			[]string{"abi       i386", "verdict   ALLOW"}, nil},
		{"minijail on stdin", []string{"compile", "--format-in", "minijail", "-"}, 0,
			[]string{"note: stdin: read from standard input: no file or directory name to take the ABI from; compiled for"}, []string{"warning: "}},
		{"syscall typo", []string{"simulate", "default", "--syscall", "getpdi"}, 2, []string{"did you mean getpid?"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := ""
			if strings.Contains(tt.name, "named otherwise") {
				stdin = "mmap2: 1\ngetuid32: 1\n"
			}
			if strings.Contains(tt.name, "on stdin") {
				stdin = "read: 1\n"
			}
			code, out, errs := runCmd(t, stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out+errs, w) {
					t.Errorf("output has %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}
