package top

import (
	"fmt"
	"slices"
)

// maxChildren bounds the descendants --children takes in: the session's
// targets map holds 4096 thread groups (runner/live), the targets too.
const maxChildren = 4000

// findChildren walks every process (Options.ListPids) up its parent chain
// (Options.Ppid) and adds to w.children each one whose chain reaches a
// --pid target or a child already known, with that target. A process
// that cannot be read (gone since the listing) is skipped. Errors: the
// listing's, or more descendants than the session can sample.
func (w *Watcher) findChildren() error {
	o := w.opts
	all, err := o.ListPids()
	if err != nil {
		return fmt.Errorf("--children: list processes: %w", err)
	}
	target := map[int]bool{}
	for _, p := range o.Pids {
		target[p] = true
	}
	parent := make(map[int]int, len(all))
	for _, p := range all {
		if pp, err := o.Ppid(p); err == nil {
			parent[p] = pp
		}
	}
	for _, p := range all {
		if target[p] {
			continue
		}
		if _, known := w.children[p]; known {
			continue
		}
		if t, ok := w.ancestor(p, target, parent); ok {
			w.children[p] = t
			w.found++
		}
	}
	// Forget children that have ended (and whose IDs may be reused).
	for p := range w.children {
		if _, alive := parent[p]; !alive {
			delete(w.children, p)
		}
	}
	if len(w.children) > maxChildren {
		return fmt.Errorf("--children: the --pid targets have %d descendants, more than the %d top can sample: give their PIDs or use --cgroup or --all", len(w.children), maxChildren)
	}
	return nil
}

// ancestor follows p's parent chain in parent (reading a parent missing
// there with Options.Ppid) to the first --pid target or known child, and
// returns the target it stands for; false when the chain ends (init,
// kthreadd, a process gone) or loops without reaching one.
func (w *Watcher) ancestor(p int, target map[int]bool, parent map[int]int) (int, bool) {
	seen := map[int]bool{p: true}
	for {
		pp, ok := parent[p]
		if !ok {
			var err error
			if pp, err = w.opts.Ppid(p); err != nil {
				return 0, false
			}
			parent[p] = pp
		}
		switch t, known := w.children[pp]; {
		case target[pp]:
			return pp, true
		case known:
			return t, true
		case pp <= 1 || seen[pp]:
			return 0, false
		}
		seen[pp] = true
		p = pp
	}
}

// childOf returns the --pid target that process pid descends from, and
// whether pid is a child at all, adding a child first seen in the
// samples to w.children. Every sampled process that is not a target was
// added by the fork-following program, so it is a child even when its
// chain no longer reaches a target (a parent that exited: target 0).
func (w *Watcher) childOf(pid int) (target int, child bool) {
	if w.children == nil || slices.Contains(w.opts.Pids, pid) {
		return 0, false
	}
	if t, ok := w.children[pid]; ok {
		return t, true
	}
	tset := map[int]bool{}
	for _, p := range w.opts.Pids {
		tset[p] = true
	}
	t, _ := w.ancestor(pid, tset, map[int]int{})
	w.children[pid] = t
	w.found++
	return t, true
}

// sampled returns the --pid targets and, with Children, every child
// found so far, ascending: the processes whose CPU time a window reads.
func (w *Watcher) sampled() []int {
	out := slices.Clone(w.opts.Pids)
	for p := range w.children {
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// refreshChildren walks /proc again at a window's start: children the
// walk in Open missed (forked between it and the session's start) are
// added to the session's targets, ended ones dropped from both, so the
// targets map does not fill with the IDs of short-lived children.
func (w *Watcher) refreshChildren() error {
	if err := w.findChildren(); err != nil {
		return err
	}
	if err := w.s.AddTargets(w.sampled()); err != nil {
		return fmt.Errorf("--children: %w", err)
	}
	if _, err := w.s.PruneTargets(); err != nil {
		return fmt.Errorf("--children: %w", err)
	}
	return nil
}
