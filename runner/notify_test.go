package runner

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/testutils"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"golang.org/x/sys/unix"
)

// notifyCfg is a short notify run on getppid with count ordinary
// allow-all filters under the notifying one.
func notifyCfg(t *testing.T, counts []int, opts notify.Options) Config {
	t.Helper()
	s, err := workload.Notify("")
	if err != nil {
		t.Fatal(err)
	}
	w := Workload{Spec: s}
	p := prog(t, "allow-all", allow)
	return Config{Programs: []*filters.Program{p}, Counts: counts, Variants: []result.Variant{result.VariantDefeat},
		Workload: w, Notify: opts, Trials: 1, Iterations: 50, Samples: 2, ChildTimeout: 30 * time.Second}
}

// The supervisor answers every notification: runCopy checks that its
// answer count equals the child's number of calls and that none failed;
// here the test checks the same from both reports directly.
func TestNotifyAnswersEveryCall(t *testing.T) {
	skipIfNoSeccomp(t)
	for _, n := range []int{0, 1, 4} {
		t.Run(map[int]string{0: "0 filters", 1: "1 filter", 4: "4 filters"}[n], func(t *testing.T) {
			cfg := withDefaults(notifyCfg(t, []int{n}, notify.Options{}))
			stacks, _, _, err := buildStacks(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := result.Cell{Variant: result.VariantDefeat, Filters: n, Loader: result.LoaderUnprivileged}
			spec := childSpec{Workload: "notify", Syscall: cfg.Workload.Syscall, Filters: stacks[c], CPU: -1,
				Iterations: cfg.Iterations, Samples: cfg.Samples, Warmup: cfg.Warmup}
			sup, nspec, err := notify.Start(cfg.Notify, cfg.Workload.Syscall[0])
			spec.Notify = nspec
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := execChild(context.Background(), cfg.ChildTimeout, c, spec, sup.Child)
			answers, serr := sup.Finish()
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
	got, err := Run(context.Background(), notifyCfg(t, []int{0, 2}, notify.Options{}))
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
	cfg := withDefaults(notifyCfg(t, []int{1}, notify.Options{Errno: syscall.EPERM}))
	stacks, _, _, err := buildStacks(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := result.Cell{Variant: result.VariantDefeat, Filters: 1, Loader: result.LoaderUnprivileged}
	spec := childSpec{Workload: "notify", Syscall: cfg.Workload.Syscall, Filters: stacks[c], CPU: -1,
		Iterations: cfg.Iterations, Samples: cfg.Samples, Warmup: cfg.Warmup}
	sup, nspec, err := notify.Start(cfg.Notify, cfg.Workload.Syscall[0])
	spec.Notify = nspec
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := execChild(context.Background(), cfg.ChildTimeout, c, spec, sup.Child)
	answers, serr := sup.Finish()
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
	if _, err := Run(context.Background(), notifyCfg(t, []int{1}, notify.Options{Errno: syscall.EPERM})); err != nil {
		t.Errorf("Run with errno reply: %v", err)
	}
}

// A supervisor that dies (closes the listener after 10 answers) makes the
// cell an error, not a hang: the kernel fails the remaining calls with
// ENOSYS and the parent reports both counts.
func TestNotifySupervisorDies(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := notifyCfg(t, []int{1}, notify.Options{DieAfter: 10})
	cfg.Iterations = 50
	start := time.Now()
	_, err := Run(context.Background(), cfg)
	if !errors.Is(err, notify.ErrSupervisor) {
		t.Fatalf("err = %v, want notify.ErrSupervisor", err)
	}
	var ce *ChildError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "ENOSYS") || !strings.Contains(ce.Reason, "answered 10 of") {
		t.Errorf("reason = %q, want the answer count and ENOSYS", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v: the child waited for its timeout instead of failing fast", d)
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
	got, err := Run(context.Background(), notifyCfg(t, []int{0}, notify.Options{Sync: true}))
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

// kernelAtLeast reports whether release (uname -r) is at least
// major.minor; false when it cannot be parsed.
func kernelAtLeast(release string, major, minor int) bool {
	v, err := testutils.ParseVersion(release)
	return err == nil && !v.Less(testutils.Version{major, minor, 0})
}
