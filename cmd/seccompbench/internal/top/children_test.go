package top

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/live"
)

// fakeTree is a process table: pid → ppid. A pid missing from it has
// ended (Ppid wraps fs.ErrNotExist).
type fakeTree map[int]int

func (tr fakeTree) ppid(pid int) (int, error) {
	if pp, ok := tr[pid]; ok {
		return pp, nil
	}
	return 0, fmt.Errorf("read parent of pid %d: %w", pid, fs.ErrNotExist)
}

func (tr fakeTree) list() ([]int, error) {
	var out []int
	for p := range tr {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

// childrenOptions are fakeOptions with --children over tree: target 7
// with a child 20 and a grandchild 21; 31 is a child of another tree;
// 40 and 41 are each other's parents (a table read mid-change).
func childrenOptions(t *testing.T) (*Options, *fakeSampler, fakeTree, *live.Options) {
	o, f := fakeOptions(t)
	tree := fakeTree{1: 0, 7: 1, 20: 7, 21: 20, 30: 1, 31: 30, 40: 41, 41: 40}
	o.Children = true
	o.Ppid = tree.ppid
	o.ListPids = tree.list
	var opened live.Options
	o.Open = func(lo live.Options) (Sampler, error) { opened = lo; return f, nil }
	return o, f, tree, &opened
}

// TestChildrenAtStart: the walk in Open adds the target's descendants
// alive now (child and grandchild, not the other tree, and a parent loop
// ends), and opens the session following forks; without --children
// nothing is walked or followed.
func TestChildrenAtStart(t *testing.T) {
	o, _, _, opened := childrenOptions(t)
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !slices.Equal(opened.Pids, []int{7, 20, 21}) || !opened.Follow {
		t.Errorf("session opened on %v, follow %v; want [7 20 21] and following forks", opened.Pids, opened.Follow)
	}
	if w.children[20] != 7 || w.children[21] != 7 || len(w.children) != 2 || w.atStart != 2 {
		t.Errorf("children %v (%d at start), want 20 and 21 of target 7", w.children, w.atStart)
	}

	o, _, _, opened = childrenOptions(t)
	o.Children = false
	o.Ppid = func(int) (int, error) { t.Error("Ppid read without --children"); return 0, nil }
	w, err = Open(o)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if !slices.Equal(opened.Pids, []int{7}) || opened.Follow {
		t.Errorf("without --children: session on %v, follow %v; want [7], no following", opened.Pids, opened.Follow)
	}
}

// TestChildrenWindow: a window's rows for the children walked at start
// (exact CPU from /proc), for one forked later whose parent is a child
// (target known), and for one whose chain ends (parent gone: a child of
// unknown target); the counts say 2 at start, 2 since. The window's walk
// adds the living descendants to the session and prunes ended ones.
func TestChildrenWindow(t *testing.T) {
	o, f, tree, _ := childrenOptions(t)
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	tree[99] = 21 // forked by the grandchild after Open
	f.extra = []uint32{20, 99, 98}
	got := window5sOn(t, w)
	byPid := map[int]document.TopProcess{}
	for _, p := range got.Processes {
		byPid[p.Pid] = p
	}
	for _, tt := range []struct {
		pid    int
		child  bool
		target int
	}{{7, false, 0}, {20, true, 7}, {99, true, 7}, {98, true, 0}} {
		p, ok := byPid[tt.pid]
		if !ok {
			t.Errorf("no row for pid %d; rows %v", tt.pid, byPid)
			continue
		}
		target := 0
		if p.ChildOf != nil {
			target = *p.ChildOf
		}
		if p.Child != tt.child || target != tt.target {
			t.Errorf("pid %d: child %v of %d, want child %v of %d (0: not known)", tt.pid, p.Child, target, tt.child, tt.target)
		}
	}
	if got.Children == nil || got.Children.AtStart != 2 || got.Children.Since != 2 {
		t.Errorf("children %+v, want 2 at start and 2 since (99 by the walk, 98 by its samples)", got.Children)
	}
	if !slices.Contains(f.added, 99) || f.pruned == 0 {
		t.Errorf("session targets added %v, pruned %d times; want 99 added and a prune per window", f.added, f.pruned)
	}
	var text strings.Builder
	report.WriteTopText(&text, got, 8, report.TextOptions{})
	for _, want := range []string{"children followed: 2 when top started, 2 found since", "child of --pid 7", "which one is unknown"} {
		if !strings.Contains(strings.Join(strings.Fields(text.String()), " "), want) { // lines wrap
			t.Errorf("text has no %q:\n%s", want, text.String())
		}
	}
	w.Close()
}

// window5sOn takes one 5 s window of an open Watcher.
func window5sOn(t *testing.T, w *Watcher) *document.Top {
	t.Helper()
	got, err := w.Window(t.Context(), 5e9)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestChildrenErrors: --children with --cgroup or --all, or without
// --pid, is a usage error; a kernel that cannot follow forks fails Open
// naming --children and the cause; so do more descendants than the
// session holds.
func TestChildrenErrors(t *testing.T) {
	for _, sel := range []func(*Options){
		func(o *Options) { o.Pids, o.All = nil, true },
		func(o *Options) { o.Pids, o.Cgroup = nil, "/sys/fs/cgroup/x" },
		func(o *Options) { o.Pids = nil },
	} {
		o, _, _, _ := childrenOptions(t)
		sel(o)
		var fe *cmdutil.FlagError
		if err := o.Validate(); !errors.As(err, &fe) || !strings.Contains(err.Error(), "--children: only with --pid") {
			t.Errorf("pids %v cgroup %q all %v: %v, want a usage error", o.Pids, o.Cgroup, o.All, err)
		}
	}
	o, _, _, _ := childrenOptions(t)
	if err := o.Validate(); err != nil {
		t.Errorf("--pid --children: %v", err)
	}

	o.Open = func(live.Options) (Sampler, error) {
		return nil, fmt.Errorf("%w: read the kernel's BTF for struct task_struct: no such file: %w", live.ErrFollow, live.ErrNotSupported)
	}
	_, err := Open(o)
	if err == nil || !strings.HasPrefix(err.Error(), "--children: cannot follow forked processes: read the kernel's BTF") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Open: %v; want one line naming --children and the missing BTF", err)
	}

	o, _, tree, _ := childrenOptions(t)
	for p := 1000; p < 1000+maxChildren+1; p++ {
		tree[p] = 7
	}
	opened := false
	o.Open = func(live.Options) (Sampler, error) { opened = true; return nil, nil }
	if _, err := Open(o); err == nil || !strings.Contains(err.Error(), "descendants, more than") || opened {
		t.Errorf("Open with %d descendants: %v, opened %v; want an error before attaching", maxChildren+3, err, opened)
	}
}
