package runner

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// notifyCfg is a short notify run on getppid with count ordinary
// allow-all filters under the notifying one.
func notifyCfg(t *testing.T, counts []int, opts NotifyOptions) Config {
	t.Helper()
	w, err := NotifyWorkload("")
	if err != nil {
		t.Fatal(err)
	}
	p := prog(t, "allow-all", allow)
	return Config{Programs: []*filters.Program{p}, Counts: counts, Variants: []Variant{VariantDefeat},
		Workload: w, Notify: opts, Trials: 1, Iterations: 50, Samples: 2, ChildTimeout: 30 * time.Second}
}

// The supervisor answers every notification: runCopy checks that its
// answer count equals the child's number of calls and that none failed;
// here the test checks the same from both reports directly.
func TestNotifyAnswersEveryCall(t *testing.T) {
	skipIfNoSeccomp(t)
	for _, n := range []int{0, 1, 4} {
		t.Run(map[int]string{0: "0 filters", 1: "1 filter", 4: "4 filters"}[n], func(t *testing.T) {
			cfg := withDefaults(notifyCfg(t, []int{n}, NotifyOptions{}))
			stacks, _, _, err := buildStacks(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := Cell{Variant: VariantDefeat, Filters: n, Loader: LoaderUnprivileged}
			spec := childSpec{Workload: "notify", Syscall: cfg.Workload.Syscall, Filters: stacks[c], CPU: -1,
				Iterations: cfg.Iterations, Samples: cfg.Samples, Warmup: cfg.Warmup}
			sup, err := startSupervisor(cfg.Notify, cfg.Workload.Syscall[0], &spec)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := execChild(context.Background(), cfg.ChildTimeout, c, spec, sup.child)
			answers, serr := sup.finish()
			if err != nil || serr != nil {
				t.Fatalf("child: %v; supervisor: %v", err, serr)
			}
			want := uint64(cfg.Warmup+cfg.Samples) * cfg.Iterations
			if rep.Notify == nil {
				t.Fatal("no notify report")
			}
			if got := rep.Notify.Calls; got != want {
				t.Errorf("child calls = %d, want %d", got, want)
			}
			if answers != want {
				t.Errorf("supervisor answers = %d, want %d", answers, want)
			}
			if rep.Notify.Failed != 0 || rep.Notify.LastRet <= 0 {
				t.Errorf("child saw %d failures, last return %d; want 0 failures and getppid's pid", rep.Notify.Failed, rep.Notify.LastRet)
			}
			if got, want := rep.FiltersAfter-rep.FiltersBefore, n+1; rep.FiltersAfter >= 0 && got != want {
				t.Errorf("filters installed = %d, want %d", got, want)
			}
		})
	}
}

// Run on the notify workload returns a round trip per op for every count.
func TestRunNotify(t *testing.T) {
	skipIfNoSeccomp(t)
	got, err := Run(context.Background(), notifyCfg(t, []int{0, 2}, NotifyOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d samples, want 2", len(got))
	}
	for _, s := range got {
		if !(s.NsPerOp > 0) {
			t.Errorf("%s: ns/op %v", s.Cell, s.NsPerOp)
		}
		t.Logf("%s: %.0f ns per round trip", s.Cell, s.NsPerOp)
	}
}

// --notify-reply errno: the supervisor's errno reaches the child as the
// syscall's result.
func TestNotifyReplyErrno(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := withDefaults(notifyCfg(t, []int{1}, NotifyOptions{Errno: syscall.EPERM}))
	stacks, _, _, err := buildStacks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := Cell{Variant: VariantDefeat, Filters: 1, Loader: LoaderUnprivileged}
	spec := childSpec{Workload: "notify", Syscall: cfg.Workload.Syscall, Filters: stacks[c], CPU: -1,
		Iterations: cfg.Iterations, Samples: cfg.Samples, Warmup: cfg.Warmup}
	sup, err := startSupervisor(cfg.Notify, cfg.Workload.Syscall[0], &spec)
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := execChild(context.Background(), cfg.ChildTimeout, c, spec, sup.child)
	answers, serr := sup.finish()
	if err != nil || serr != nil {
		t.Fatalf("child: %v; supervisor: %v", err, serr)
	}
	want := uint64(cfg.Warmup+cfg.Samples) * cfg.Iterations
	if rep.Notify.Failed != want || answers != want {
		t.Errorf("failed calls %d, answers %d; want %d each", rep.Notify.Failed, answers, want)
	}
	if got, want := rep.Notify.LastRet, -int64(syscall.EPERM); got != want {
		t.Errorf("last return = %d, want %d", got, want)
	}
	// And Run accepts it: every call failed with the errno asked for.
	if _, err := Run(context.Background(), notifyCfg(t, []int{1}, NotifyOptions{Errno: syscall.EPERM})); err != nil {
		t.Errorf("Run with errno reply: %v", err)
	}
}

// A supervisor that dies (closes the listener after 10 answers) makes the
// cell an error, not a hang: the kernel fails the remaining calls with
// ENOSYS and the parent reports both counts.
func TestNotifySupervisorDies(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := notifyCfg(t, []int{1}, NotifyOptions{dieAfter: 10})
	cfg.Iterations = 50
	start := time.Now()
	_, err := Run(context.Background(), cfg)
	if !errors.Is(err, ErrSupervisor) {
		t.Fatalf("err = %v, want ErrSupervisor", err)
	}
	var ce *ChildError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "ENOSYS") || !strings.Contains(ce.Reason, "answered 10 of") {
		t.Errorf("reason = %q, want the answer count and ENOSYS", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v: the child waited for its timeout instead of failing fast", d)
	}
}

func TestCheckNotifyReport(t *testing.T) {
	tests := []struct {
		name    string
		rep     *notifyReport
		answers uint64
		opts    NotifyOptions
		want    string // substring, "" for agreement
	}{
		{"agree continue", &notifyReport{Calls: 100, LastRet: 42}, 100, NotifyOptions{}, ""},
		{"agree errno", &notifyReport{Calls: 100, Failed: 100, LastRet: -1}, 100, NotifyOptions{Errno: syscall.EPERM}, ""},
		{"missing answers", &notifyReport{Calls: 100, Failed: 90, LastRet: -38}, 10, NotifyOptions{}, "answered 10 of the child's 100"},
		{"enosys named", &notifyReport{Calls: 100, Failed: 90, LastRet: -38}, 10, NotifyOptions{}, "function not implemented"},
		{"short child", &notifyReport{Calls: 50}, 50, NotifyOptions{}, "made 50 notified calls, want 100"},
		{"errno not seen", &notifyReport{Calls: 100, Failed: 0, LastRet: 7}, 100, NotifyOptions{Errno: syscall.EPERM}, "only 0 of the child's 100 calls failed"},
		{"wrong errno", &notifyReport{Calls: 100, Failed: 100, LastRet: -13}, 100, NotifyOptions{Errno: syscall.EPERM}, "returned -13, want -1"},
		{"no report", nil, 0, NotifyOptions{}, "no notify counts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkNotifyReport(tt.rep, tt.answers, 100, tt.opts)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNotifyProgram(t *testing.T) {
	b := notifyProgram(110)
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

// --notify-sync sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP; on a kernel
// older than 6.6 the run must fail with ErrNotSupported, on a newer one it
// must work.
func TestRunNotifySync(t *testing.T) {
	skipIfNoSeccomp(t)
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		t.Fatal(err)
	}
	rel := unix.ByteSliceToString(uts.Release[:])
	got, err := Run(context.Background(), notifyCfg(t, []int{0}, NotifyOptions{Sync: true}))
	if !kernelAtLeast(rel, 6, 6) {
		if !errors.Is(err, ErrNotSupported) {
			t.Fatalf("Linux %s: err = %v, want ErrNotSupported", rel, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Linux %s has SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %v", rel, err)
	}
	t.Logf("sync round trip: %.0f ns", got[0].NsPerOp)
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
