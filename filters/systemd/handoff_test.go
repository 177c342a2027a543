package systemd

import (
	"errors"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

// refusedUnit is the 257 VM run's allowlist.service in short: an allow
// list, a deny line, the ~write:EROFS exception and a later
// SystemCallFilter= line, so the line to blame is not the last one.
const refusedUnit = `[Unit]
Description=allow list with a write errno

[Service]
ExecStart=/bin/true
SystemCallFilter=@system-service
SystemCallFilter=~write:EROFS
SystemCallFilter=~@resources
SystemCallArchitectures=x86-64 x32
`

// TestHandoffWriteRefusal: systemd 256.2 and later refuse the unit
// ("Failed to apply system call filters: File exists"), and the error
// names the line that gave write its errno, the versions and why; 252 and
// 255 install it with write answering EROFS.
func TestHandoffWriteRefusal(t *testing.T) {
	for _, v := range []int{256, 257, 262} {
		_, err := ParseUnit("allowlist.service", []byte(refusedUnit), Options{SystemdVersion: v})
		var se *filters.SourceError
		if !errors.Is(err, ErrHandoffWrite) || !errors.As(err, &se) || se.File != "allowlist.service" || se.Line != 7 {
			t.Fatalf("systemd %d: err = %v, want ErrHandoffWrite at allowlist.service:7", v, err)
		}
		for _, want := range []string{"allowlist.service:7:", "errno EROFS", "256.2 and later (here: 256, 257, 258, 259, 262)", "hashmap_put", "File exists", "255 and earlier"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("systemd %d: error %q lacks %q", v, err, want)
			}
		}
	}
	for _, v := range []int{252, 255} {
		st, err := ParseUnit("allowlist.service", []byte(refusedUnit), Options{SystemdVersion: v})
		if err != nil {
			t.Fatalf("systemd %d: %v", v, err)
		}
		filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{
			{Name: "write EROFS", Syscall: "write", Action: filters.ActionErrno, Data: 30},
		})
	}
}

// TestHandoffWriteRefusalWhere: the blamed line is the one that gave write
// its errno, in a drop-in or through a group; a later line allowing write
// takes the errno away, so the unit starts.
func TestHandoffWriteRefusalWhere(t *testing.T) {
	opt := Options{SystemdVersion: 257, DropIns: []File{{Name: "override.conf", Data: []byte("[Service]\n\nSystemCallFilter=~@basic-io:EACCES\n")}}}
	_, err := ParseUnit("a.service", []byte("[Service]\nSystemCallFilter=@system-service\n"), opt)
	var se *filters.SourceError
	if !errors.Is(err, ErrHandoffWrite) || !errors.As(err, &se) || se.File != "override.conf" || se.Line != 3 || !strings.Contains(err.Error(), "errno EACCES") {
		t.Fatalf("err = %v, want ErrHandoffWrite at override.conf:3 naming EACCES", err)
	}
	// ~write:kill is an errno too (SECCOMP_ERROR_NUMBER_KILL is INT_MAX-1).
	if _, err := ParseUnit("k.service", []byte("SystemCallFilter=read\nSystemCallFilter=~write:kill\n"), Options{SystemdVersion: 257}); !errors.Is(err, ErrHandoffWrite) || !strings.Contains(err.Error(), "k.service:2:") || !strings.Contains(err.Error(), "errno kill") {
		t.Errorf("~write:kill: %v", err)
	}
	st, err := ParseUnit("b.service", []byte("SystemCallFilter=@system-service\nSystemCallFilter=~write:EROFS\nSystemCallFilter=write\n"), Options{SystemdVersion: 257})
	if err != nil {
		t.Fatalf("write allowed again: %v", err)
	}
	filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{{Name: "write", Syscall: "write", Action: filters.ActionAllow}})
	// A "+" command gets no filters, so nothing is refused.
	if _, err := ParseUnit("c.service", []byte("ExecStart=+/bin/true\nSystemCallFilter=@system-service\nSystemCallFilter=~write:EROFS\n"), Options{SystemdVersion: 257}); err != nil {
		t.Errorf("ExecStart=+: %v", err)
	}
}

// TestHandoffWriteContinueRefused: with ContinueRefused (lint), the unit
// systemd 257 refuses is still modeled: the refusal is a Refused warning
// at the line that gave write its errno, with the same explanation as the
// error, and SystemCallFilter= is built as 255 installs it (write EROFS,
// the ~@resources line still applied).
func TestHandoffWriteContinueRefused(t *testing.T) {
	_, want := ParseUnit("allowlist.service", []byte(refusedUnit), Options{SystemdVersion: 257})
	if want == nil {
		t.Fatal("systemd 257 modeled the unit without ContinueRefused")
	}
	st, err := ParseUnit("allowlist.service", []byte(refusedUnit), Options{SystemdVersion: 257, ContinueRefused: true})
	if err != nil {
		t.Fatalf("ContinueRefused: %v", err)
	}
	var refused []*filters.SourceError
	for _, w := range st.Source().Warnings {
		if w.Refused {
			refused = append(refused, w)
		}
	}
	if len(refused) != 1 || refused[0].File != "allowlist.service" || refused[0].Line != 7 || !errors.Is(refused[0], ErrHandoffWrite) || refused[0].Error() != want.Error() {
		t.Fatalf("Refused warnings %v, want one at allowlist.service:7 saying %q", refused, want)
	}
	filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{
		{Name: "write EROFS", Syscall: "write", Action: filters.ActionErrno, Data: 30},
		{Name: "read", Syscall: "read", Action: filters.ActionAllow},
		{Name: "setrlimit (~@resources)", Syscall: "setrlimit", Action: filters.ActionKillProcess},
	})
	// A unit systemd starts gets no Refused warning.
	st, err = ParseUnit("ok.service", []byte("SystemCallFilter=@system-service\n"), Options{SystemdVersion: 257, ContinueRefused: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range st.Source().Warnings {
		if w.Refused {
			t.Errorf("unit systemd starts: Refused warning %v", w)
		}
	}
}
