package notify

import (
	"encoding/binary"
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

func TestCheckNotifyReport(t *testing.T) {
	tests := []struct {
		name    string
		rep     *Report
		answers uint64
		opts    Options
		want    string // substring, "" for agreement
	}{
		{"agree continue", &Report{Calls: 100, LastRet: 42}, 100, Options{}, ""},
		{"agree errno", &Report{Calls: 100, Failed: 100, LastRet: -1}, 100, Options{Errno: syscall.EPERM}, ""},
		{"missing answers", &Report{Calls: 100, Failed: 90, LastRet: -38}, 10, Options{}, "answered 10 of the child's 100"},
		{"enosys named", &Report{Calls: 100, Failed: 90, LastRet: -38}, 10, Options{}, "function not implemented"},
		{"short child", &Report{Calls: 50}, 50, Options{}, "made 50 notified calls, want 100"},
		{"errno not seen", &Report{Calls: 100, Failed: 0, LastRet: 7}, 100, Options{Errno: syscall.EPERM}, "only 0 of the child's 100 calls failed"},
		{"wrong errno", &Report{Calls: 100, Failed: 100, LastRet: -13}, 100, Options{Errno: syscall.EPERM}, "returned -13, want -1"},
		{"no report", nil, 0, Options{}, "no notify counts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckReport(tt.rep, tt.answers, 100, tt.opts)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNotifyProgram(t *testing.T) {
	b := Program(110)
	var raw []bpf.RawInstruction
	for i := 0; i+8 <= len(b); i += 8 {
		raw = append(raw, bpf.RawInstruction{Op: binary.LittleEndian.Uint16(b[i:]), Jt: b[i+2], Jf: b[i+3], K: binary.LittleEndian.Uint32(b[i+4:])})
	}
	p := &filters.Program{Name: "notify", Insns: raw}
	tests := []struct {
		name string
		nr   int32
		arch uint32
		want filters.Action
	}{
		{"getppid native", 110, auditArchNative, filters.ActionUserNotif},
		{"getpid native", 39, auditArchNative, filters.ActionAllow},
		{"futex native", 202, auditArchNative, filters.ActionAllow},
		{"110 on i386", 110, 0x40000003, filters.ActionAllow},
		{"x32 getppid", 110 | 0x40000000, auditArchNative, filters.ActionAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := filters.Emulate(p, filters.SeccompData{Nr: tt.nr, Arch: tt.arch})
			if err != nil {
				t.Fatal(err)
			}
			if r.Action != tt.want {
				t.Errorf("action = %v, want %v", r.Action, tt.want)
			}
		})
	}
}

func TestKernelAtLeast(t *testing.T) {
	tests := []struct {
		rel          string
		major, minor int
		want         bool
	}{
		{"6.18.0", 6, 6, true},
		{"6.6.1-foo", 6, 6, true},
		{"6.5.13", 6, 6, false},
		{"5.15.0-91-generic", 5, 5, true},
		{"5.4.0", 5, 5, false},
		{"7.0", 6, 6, true},
		{"junk", 1, 0, false},
	}
	for _, tt := range tests {
		if got := kernelAtLeast(tt.rel, tt.major, tt.minor); got != tt.want {
			t.Errorf("kernelAtLeast(%q, %d, %d) = %v, want %v", tt.rel, tt.major, tt.minor, got, tt.want)
		}
	}
}
