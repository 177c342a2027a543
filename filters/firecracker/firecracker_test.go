package firecracker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

// TestDetect: only the seccompiler sample is claimed (formats'
// TestDetectNewFormats checks the table sends it here, not to Beats).
func TestDetect(t *testing.T) {
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if got, want := Detect(b), filepath.Base(f) == "firecracker-vmm.json"; got != want {
			t.Errorf("Detect(%s) = %v, want %v", f, got, want)
		}
	}
	for _, s := range []string{
		`{"default_action": "errno", "syscalls": [{"action": "allow", "names": ["read"]}]}`,
		`{"seccomp": {"default_action": "errno", "syscalls": []}}`,
		`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`,
		`[{"filter": 1}]`, ``, `{`, `{"a": {"b": "filter", "c": ["filter_action"]}}`,
	} {
		if Detect([]byte(s)) {
			t.Errorf("Detect(%s) = true, want false", s)
		}
	}
	if !Detect([]byte(`{"vmm": {"default_action": "trap", "filter_action": "allow", "filter": [{"syscall": "read"},]}}`)) {
		t.Error("Detect(broken seccompiler JSON) = false, want true: its syntax error is worth more than Beats' schema error")
	}
}

// TestVerdicts checks the example against verdicts worked out by hand
// from the file.
func TestVerdicts(t *testing.T) {
	progs, warns, err := Load("firecracker-vmm.json", formattest.Read(t, "firecracker-vmm.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*filters.Program{}
	for _, p := range progs {
		names = append(names, p.Name)
		byName[p.Name] = p
	}
	if strings.Join(names, ",") != "vmm,api,vcpu" {
		t.Fatalf("programs %v, want vmm,api,vcpu", names)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "firecracker-vmm.json:41:11: dword le on argument 2 of madvise") {
		t.Errorf("warnings = %q, want one about madvise's dword le", warns)
	}
	x := filters.ArchX86_64
	tests := []struct {
		thread, name string
		arch         *filters.Arch
		args         []uint64
		want         filters.Action
		errno        uint16
	}{
		{"vmm", "read", x, nil, filters.ActionAllow, 0},
		{"vmm", "openat", x, nil, filters.ActionTrap, 0},
		{"vmm", "futex", x, []uint64{0, 128}, filters.ActionAllow, 0},
		{"vmm", "futex", x, []uint64{0, 1<<32 | 129}, filters.ActionAllow, 0}, // dword: high half ignored
		{"vmm", "futex", x, []uint64{0, 0}, filters.ActionTrap, 0},            // FUTEX_WAIT, not private
		{"vmm", "ioctl", x, []uint64{9, 0x4020ae76}, filters.ActionAllow, 0},
		{"vmm", "ioctl", x, []uint64{9, 0xae80}, filters.ActionTrap, 0},
		{"vmm", "mmap", x, []uint64{0, 4096, 3, 0x22}, filters.ActionAllow, 0},
		{"vmm", "mmap", x, []uint64{0, 4096, 7, 0x22}, filters.ActionTrap, 0}, // PROT_EXEC
		{"vmm", "mmap", x, []uint64{0, 4096, 3, 0x21}, filters.ActionTrap, 0}, // MAP_SHARED
		{"vmm", "madvise", x, []uint64{0, 4096, 4}, filters.ActionAllow, 0},
		{"vmm", "madvise", x, []uint64{0, 4096, 8}, filters.ActionTrap, 0},
		{"vmm", "read", filters.ArchI386, nil, filters.ActionKillThread, 0}, // foreign arch
		{"api", "fcntl", x, []uint64{3, 2, 1}, filters.ActionAllow, 0},
		{"api", "fcntl", x, []uint64{3, 2, 0}, filters.ActionTrap, 0},
		{"api", "accept4", x, nil, filters.ActionAllow, 0},
		{"api", "ioctl", x, []uint64{9, 0xae80}, filters.ActionTrap, 0},
		{"vcpu", "ioctl", x, []uint64{9, 0xae80}, filters.ActionAllow, 0},
		{"vcpu", "ioctl", x, []uint64{9, 0x8090ae81}, filters.ActionAllow, 0},
		{"vcpu", "ioctl", x, []uint64{9, 0x4020ae76}, filters.ActionErrno, 1},
		{"vcpu", "read", x, nil, filters.ActionErrno, 1},
		{"vcpu", "pidfd_open", x, nil, filters.ActionErrno, 1}, // no runc ENOSYS stub
	}
	for _, tt := range tests {
		act, data := formattest.Verdict(t, byName[tt.thread], tt.arch, tt.name, tt.args...)
		if act != tt.want || data != tt.errno {
			t.Errorf("%s: %s %s(%#x) = %v/%d, want %v/%d", tt.thread, tt.arch, tt.name, tt.args, act, data, tt.want, tt.errno)
		}
	}
	one, _, err := Load("firecracker-vmm.json", formattest.Read(t, "firecracker-vmm.json"), Options{Thread: "api"})
	if err != nil || len(one) != 1 || one[0].Name != "api" {
		t.Errorf("Load(Thread: api) = %v, %v; want the api program", one, err)
	}
}

func TestActions(t *testing.T) {
	for _, tt := range []struct {
		act   string
		want  filters.Action
		errno uint16
	}{
		{`"allow"`, filters.ActionAllow, 0}, {`{"errno": 13}`, filters.ActionErrno, 13}, {`"errno(22)"`, filters.ActionErrno, 22},
		{`"kill_thread"`, filters.ActionKillThread, 0}, {`"kill_process"`, filters.ActionKillProcess, 0},
		{`"trap"`, filters.ActionTrap, 0}, {`"log"`, filters.ActionLog, 0}, {`{"trace": 7}`, filters.ActionTrace, 7},
	} {
		src := `{"t": {"default_action": ` + tt.act + `, "filter_action": "allow", "filter": [{"syscall": "read"}]}}`
		progs, _, err := Load("a.json", []byte(src), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.act, err)
		}
		if act, data := formattest.Verdict(t, progs[0], filters.ArchX86_64, "write"); act != tt.want || data != tt.errno {
			t.Errorf("default %s: write = %v/%d, want %v/%d", tt.act, act, data, tt.want, tt.errno)
		}
	}
}

func TestErrors(t *testing.T) {
	wrap := func(filter string) string {
		return "{\n \"vmm\": {\n  \"default_action\": \"trap\",\n  \"filter_action\": \"allow\",\n  \"filter\": [\n   " + filter + "\n  ]\n }\n}\n"
	}
	tests := []struct{ name, src, opt, want string }{
		{"syntax", wrap(`{"syscall": "read"},`), "", "f.json:7:3: invalid Firecracker seccomp filter: parse JSON: invalid character ']'"},
		{"action", strings.Replace(wrap(`{"syscall": "read"}`), `"trap"`, `"deny"`, 1), "", `f.json:3:21: invalid Firecracker seccomp filter: unknown action "deny"`},
		{"op", wrap(`{"syscall": "ioctl", "args": [{"index": 1, "type": "dword", "op": "bits_set", "val": 1}]}`), "", "f.json:6:70: invalid Firecracker seccomp filter: unknown op in a condition of ioctl"},
		{"index", wrap(`{"syscall": "ioctl", "args": [{"index": 6, "type": "dword", "op": "eq", "val": 1}]}`), "", "f.json:6:44: invalid Firecracker seccomp filter: index 6 of a condition of ioctl: want an integer from 0 to 5"},
		{"dword val", wrap(`{"syscall": "ioctl", "args": [{"index": 1, "type": "dword", "op": "eq", "val": 4294967296}]}`), "", "f.json:6:83: invalid Firecracker seccomp filter: val 4294967296 of a condition of ioctl: want an integer from 0 to 4294967295"},
		{"type", wrap(`{"syscall": "ioctl", "args": [{"index": 1, "type": "word", "op": "eq", "val": 1}]}`), "", `f.json:6:55: invalid Firecracker seccomp filter: condition of ioctl: want "type": "dword" or "qword"`},
		{"range", wrap(`{"syscall": "madvise", "args": [{"index": 2, "type": "qword", "op": "ge", "val": 1}, {"index": 2, "type": "qword", "op": "le", "val": 4}]}`), "",
			"f.json:6:16: invalid Firecracker seccomp filter: madvise: several conditions on argument 2, not all equalities"},
		{"unknown key", wrap(`{"syscall": "read", "action": "allow"}`), "", `f.json:6:24: invalid Firecracker seccomp filter: unknown key "action" in a filter entry`},
		{"thread", wrap(`{"syscall": "read"}`), "vcpu", `f.json: invalid Firecracker seccomp filter: no thread category "vcpu"; the file has vmm`},
		{"no filter_action", `{"vmm": {"default_action": "trap", "filter": []}}`, "", `f.json:1:2: invalid Firecracker seccomp filter: thread "vmm" has no filter_action`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("f.json", []byte(tt.src), Options{Thread: tt.opt})
			if err == nil {
				t.Fatal("no error")
			}
			var se *filters.SourceError
			if !errors.Is(err, ErrBadFilter) || !errors.As(err, &se) {
				t.Errorf("error %v is no *filters.SourceError wrapping ErrBadFilter", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
