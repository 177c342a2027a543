//go:build ignore

// mkociprofiles writes the generated OCI entries of testdata/policies:
//
//   - docker-default.json: Docker's default profile exactly as
//     github.com/moby/profiles/seccomp's DefaultProfile builds it
//     (filters.DockerDefaultJSON), so the corpus has the real thing without
//     copying a file;
//   - podman-like.json: the same rules with Podman's convention for what is
//     not listed: defaultErrnoRet ENOSYS (so programs treat unknown or new
//     syscalls as absent and fall back), plus an explicit EPERM entry for
//     known syscalls the profile refuses under every capability set;
//   - raw.bpf: docker-default compiled for the default capability set and
//     kernel, as an array of struct sock_filter (Program.Bytes).
//
// Run it with `go generate ./filters/`; the output depends only on the
// module versions, so rerunning it reproduces the committed files.
package main

import (
	"encoding/json"
	"log"
	"os"
	"slices"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters"
)

const dir = "../testdata/policies/"

// podmanRefused are well-known syscalls an unprivileged container should
// see refused with EPERM rather than reported missing; names the Docker
// profile allows under some capability are left out below.
var podmanRefused = []string{
	"acct", "add_key", "bdflush", "bpf", "create_module", "delete_module", "finit_module",
	"get_kernel_syms", "init_module", "kexec_file_load", "kexec_load", "keyctl", "lookup_dcookie",
	"mount", "move_mount", "nfsservctl", "open_by_handle_at", "perf_event_open", "pivot_root",
	"query_module", "quotactl", "reboot", "request_key", "setns", "swapoff", "swapon", "sysfs",
	"umount", "umount2", "unshare", "uselib", "userfaultfd", "ustat", "vm86", "vm86old",
}

func main() {
	b, err := filters.DockerDefaultJSON()
	if err != nil {
		log.Fatal(err)
	}
	write("docker-default.json", b)

	prof := mobyseccomp.DefaultProfile()
	enosys := uint(38)
	prof.DefaultErrnoRet = &enosys
	listed := map[string]bool{}
	for _, sc := range prof.Syscalls {
		for _, n := range sc.Names {
			listed[n] = true
		}
	}
	var refused []string
	for _, n := range podmanRefused {
		if !listed[n] {
			refused = append(refused, n)
		}
	}
	slices.Sort(refused)
	eperm := uint(1)
	prof.Syscalls = append(prof.Syscalls, &mobyseccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{Names: refused, Action: specs.ActErrno, ErrnoRet: &eperm},
		Comment:      "known syscalls refused with EPERM; anything unlisted gets ENOSYS",
	})
	pb, err := json.MarshalIndent(prof, "", "\t")
	if err != nil {
		log.Fatal(err)
	}
	write("podman-like.json", append(pb, '\n'))

	p, err := filters.ParseOCI("docker-default", b, filters.OCIOptions{})
	if err != nil {
		log.Fatal(err)
	}
	write("raw.bpf", p.Bytes())
}

func write(name string, b []byte) {
	if err := os.WriteFile(dir+name, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
