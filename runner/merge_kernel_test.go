//go:build linux && amd64

package runner

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/optimize"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// The merge/optimize differential test against the kernel (issue 15):
// each corpus stack and the one program optimize.Merge (or Optimize) made
// of it are installed, in separate probe children, after the same
// value-mapping of every return value, and probed with the same syscalls;
// the kernel must give both the same result for every probe.
//
// A mapping must not let any syscall run and must keep the kernel's
// precedence between the stack's filters meaningful. Two kinds do:
//
//   - threshold t: a return value whose action is at or below t (compared
//     as signed 32-bit, the kernel's order) becomes ERRNO(1), any other
//     TRACE (ENOSYS without a tracer). A stack then returns ERRNO(1)
//     exactly when its winning action is at or below t, so running every t
//     present checks the winning action level.
//   - data: ERRNO values keep their errno, lower actions become ERRNO(4000)
//     and higher ones TRACE. On probes whose winning action is ERRNO no
//     filter returns a lower action, so the stack returns the errno of the
//     newest ERRNO filter: exactly the errno the task would see. The check
//     is made on those probes only.
//
// TRAP data (si_errno) and TRACE data are not observed: the probe child
// has no SIGSYS handler or tracer.

// remapBy returns s with installerPrefix prepended to every program and
// every `ret #k` replaced by f(k).
func remapBy(s filters.Stack, f func(uint32) uint32) (filters.Stack, error) {
	prefix := installerPrefix()
	out := make(filters.Stack, len(s))
	for i, p := range s {
		q := *p
		q.Insns = append(append([]bpf.RawInstruction(nil), prefix...), p.Insns...)
		for j := len(prefix); j < len(q.Insns); j++ {
			in := &q.Insns[j]
			switch in.Op {
			case 0x06: // BPF_RET|BPF_K
				in.K = f(in.K)
			case 0x16: // BPF_RET|BPF_A
				return nil, fmt.Errorf("remap %s: instruction %d returns the accumulator", p.Name, j-len(prefix))
			}
		}
		out[i] = &q
	}
	return out, nil
}

func thresholdMap(t filters.Action) func(uint32) uint32 {
	return func(k uint32) uint32 {
		if int32(k&filters.RetActionFull) <= int32(t) {
			return uint32(filters.ActionErrno) | 1
		}
		return uint32(filters.ActionTrace)
	}
}

func dataMap(k uint32) uint32 {
	a, d := filters.SplitRet(k)
	switch {
	case a == filters.ActionErrno:
		return uint32(filters.ActionErrno) | uint32(min(d, filters.MaxErrno))
	case int32(a) < int32(filters.ActionErrno):
		return uint32(filters.ActionErrno) | 4000
	}
	return uint32(filters.ActionTrace)
}

// kernelResults installs s remapped by f in a probe child and returns the
// raw result of every probe.
func kernelResults(t *testing.T, s filters.Stack, f func(uint32) uint32, probes []kernelProbe) []int64 {
	t.Helper()
	rs, err := remapBy(s, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filters.BuildStack(rs, len(rs)); err != nil {
		t.Skipf("remapped stack over a kernel limit: %v", err)
	}
	spec := probeChildSpec{Flags: installFlags, Probes: probes}
	for _, p := range rs {
		spec.Filters = append(spec.Filters, p.Bytes())
	}
	rep, _, err := startProbeChild(t, spec)
	if err != nil {
		t.Fatalf("%d filters: %v", len(rs), err)
	}
	if rep.Installed != len(rs) || len(rep.Rets) != len(probes) {
		t.Fatalf("child installed %d of %d filters and made %d of %d probes", rep.Installed, len(rs), len(rep.Rets), len(probes))
	}
	return rep.Rets
}

func TestMergedAgreesWithStackInKernel(t *testing.T) {
	skipIfNoSeccomp(t)
	i386, why := i386Works(t)
	if !i386 {
		t.Logf("i386 probes skipped: INT $0x80 does not work here: %s", why)
	}
	t.Logf("x86_64 numbers 335 (uretprobe) and 336 (uprobe) are not probed: kernel/seccomp.c: seccomp_uprobe_exception bypasses the filters for them")
	type pair struct {
		name     string
		stack    filters.Stack
		optimize bool
	}
	var pairs []pair
	for _, unit := range []string{"hardened.service", "timesyncd-like.service"} {
		path := "../testdata/policies/" + unit
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		u, err := systemd.ParseUnit(path, data, systemd.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{name: unit, stack: u.Stack()})
	}
	for _, spec := range []string{oci.DockerDefaultName, "../testdata/policies/args-workload.yaml", "../testdata/policies/podman-like.json", "../testdata/policies/pathological.yaml"} {
		p, err := formats.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{name: p.Name, stack: filters.Stack{p}, optimize: true})
	}
	rng := rand.New(rand.NewPCG(15, 15))
	for _, pr := range pairs {
		t.Run(pr.name, func(t *testing.T) {
			var res *optimize.Result
			var err error
			if pr.optimize {
				res, err = optimize.Optimize(pr.stack[0], optimize.Weights{})
			} else {
				res, err = optimize.Merge(pr.stack, optimize.Weights{})
			}
			if err != nil {
				t.Fatal(err)
			}
			merged := filters.Stack{res.Program}
			probes := makeProbes(rng, argPool(pr.stack), i386)
			// Winning action per probe, from the emulator (its agreement
			// with the kernel is TestEmulatorAgreesWithKernel's job).
			winner := make([]filters.Action, len(probes))
			levels := map[filters.Action]bool{}
			for i, p := range probes {
				r, err := filters.EmulateStack(pr.stack, p.arch().Data(int(p.Nr), p.Args[:]...))
				if err != nil {
					t.Fatal(err)
				}
				a, _ := filters.SplitRet(r.Ret)
				winner[i] = a
				levels[a] = true
			}
			for lvl := range levels {
				if lvl == filters.ActionAllow {
					continue
				}
				f := thresholdMap(lvl)
				ks, km := kernelResults(t, pr.stack, f, probes), kernelResults(t, merged, f, probes)
				bad := 0
				for i := range probes {
					if ks[i] != km[i] {
						if bad++; bad <= 5 {
							t.Errorf("threshold %s: %s: stack %d, merged %d", lvl, probes[i], ks[i], km[i])
						}
					}
				}
				t.Logf("threshold %s: %d/%d probes agree", lvl, len(probes)-bad, len(probes))
			}
			if levels[filters.ActionErrno] {
				ks, km := kernelResults(t, pr.stack, dataMap, probes), kernelResults(t, merged, dataMap, probes)
				n, bad := 0, 0
				for i := range probes {
					if winner[i] != filters.ActionErrno {
						continue
					}
					n++
					if ks[i] != km[i] {
						if bad++; bad <= 5 {
							t.Errorf("errno data: %s: stack %d, merged %d", probes[i], ks[i], km[i])
						}
					}
				}
				t.Logf("errno data: %d/%d ERRNO probes agree", n-bad, n)
			}
		})
	}
}
