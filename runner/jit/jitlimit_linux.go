package jit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/internal/jitmem"
)

// limitGuard lowers bpf_jit_limit temporarily and puts the original value
// back on every exit path: Restore (deferred by its user), SIGINT, SIGTERM,
// SIGHUP and SIGQUIT (a handler restores, then re-raises the signal with
// its default action). SIGKILL cannot be caught: the original value is
// also written to stateFile before the first change, and the next
// newLimitGuard restores it from there.
type limitGuard struct {
	mu       sync.Mutex
	orig     int64
	changed  bool
	restored bool
	sigs     chan os.Signal
	done     chan struct{}
	lowered  time.Time
	// Lowered is the total time the limit was below its original value.
	Lowered time.Duration
}

// jitStateFile keeps the original bpf_jit_limit while a guard runs.
var jitStateFile = filepath.Join(os.TempDir(), "seccompbench-bpf_jit_limit.orig")

// newLimitGuard reads the current limit (first restoring one left behind
// by a guard that was killed) and installs the signal handler. It never
// raises the limit above the original value.
func newLimitGuard() (*limitGuard, string, error) {
	var note string
	if b, err := os.ReadFile(jitStateFile); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			if cur, err := readJITLimit(); err == nil && cur != v {
				if err := writeJITLimit(v); err != nil {
					return nil, "", fmt.Errorf("restore bpf_jit_limit %d left by an interrupted run: %w", v, err)
				}
				note = fmt.Sprintf("restored bpf_jit_limit %d left lowered (%d) by an interrupted run", v, cur)
			}
		}
		os.Remove(jitStateFile)
	}
	orig, err := readJITLimit()
	if err != nil {
		return nil, note, err
	}
	g := &limitGuard{orig: orig, sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(g.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		select {
		case s := <-g.sigs:
			g.Restore()
			signal.Reset(s)
			p, _ := os.FindProcess(os.Getpid())
			p.Signal(s)
			time.Sleep(time.Second)
			os.Exit(128 + int(s.(syscall.Signal)))
		case <-g.done:
		}
	}()
	return g, note, nil
}

// Set writes v to bpf_jit_limit; v must not exceed the original limit.
func (g *limitGuard) Set(v int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restored {
		return errors.New("set bpf_jit_limit: guard already restored")
	}
	if v > g.orig {
		return fmt.Errorf("set bpf_jit_limit to %d: above the original %d, refused", v, g.orig)
	}
	if !g.changed {
		if err := os.WriteFile(jitStateFile, []byte(strconv.FormatInt(g.orig, 10)), 0o600); err != nil {
			return fmt.Errorf("save original bpf_jit_limit: %w", err)
		}
	}
	if err := writeJITLimit(v); err != nil {
		return err
	}
	g.changed = true
	switch {
	case v < g.orig && g.lowered.IsZero():
		g.lowered = time.Now()
	case v == g.orig && !g.lowered.IsZero():
		g.Lowered += time.Since(g.lowered)
		g.lowered = time.Time{}
	}
	return nil
}

// Reset puts the original limit back between probes, so that other
// loaders on the machine are refused only while a probe child loads.
func (g *limitGuard) Reset() error { return g.Set(g.orig) }

// Restore writes the original limit back (once; later calls do nothing),
// removes the state file and the signal handler.
func (g *limitGuard) Restore() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restored {
		return nil
	}
	g.restored = true
	signal.Stop(g.sigs)
	close(g.done)
	if !g.changed {
		return nil
	}
	if !g.lowered.IsZero() {
		g.Lowered += time.Since(g.lowered)
	}
	if err := writeJITLimit(g.orig); err != nil {
		return fmt.Errorf("restore bpf_jit_limit: %w; set it back by hand: echo %d > %s", err, g.orig, jitLimitPath)
	}
	os.Remove(jitStateFile)
	return nil
}

// ChargeMeasurement is the JIT charge measured on this kernel by
// MeasureJITCharge. Bytes throughout.
type ChargeMeasurement struct {
	// Limit is the original bpf_jit_limit, restored afterwards.
	Limit int64
	// Current is the charge (bpf_jit_current) when the measurement ran,
	// within ±ProbeBytes plus what other processes loaded or freed
	// meanwhile.
	Current int64
	// ProbeBytes is the charge of the 1-instruction probe filter.
	ProbeBytes int64
	// StackBytes is the charge of the stack held meanwhile; 0 without a
	// stack.
	StackBytes int64
	// StackSamples are the single estimates of StackBytes, which is their
	// median; their spread shows how much other processes moved the
	// charge meanwhile.
	StackSamples []int64
	// Filters is the number of filters in that stack.
	Filters int
	// Fills are the probe filters each fill loaded before errno 524, in
	// order: at L, at L+32 KiB, then at Ls without the stack and, for each
	// repetition, with and without it.
	Fills []int
	// Probes is the number of probe children run; Lowered the total time
	// the limit was below its original value.
	Probes  int
	Lowered time.Duration
	// Notes are remarks for the report (e.g. a restored limit).
	Notes []string
}

// PerFilter returns StackBytes / Filters, the mean charge per filter.
func (m ChargeMeasurement) PerFilter() float64 {
	if m.Filters == 0 {
		return 0
	}
	return float64(m.StackBytes) / float64(m.Filters)
}

// probeFilter is `ret SECCOMP_RET_ALLOW`: one classic instruction, five
// eBPF instructions after conversion.
var probeFilter = []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}

// maxFill is the most probe filters one child loads: MAX_INSNS_PER_PATH
// (32768) over the probe's converted length plus 4 (kernel/seccomp.c:
// seccomp_attach_filter) is 3640.
const maxFill = 3600

// fillWindow and fillStep size the fills, in bytes: a fill at L loads
// (L - charge) / s probe filters, at most maxFill.
const (
	stackRepeats = 5
	fillWindow   = 32 << 10
	fillStep     = 32 << 10
)

// errFillWide is returned by a fill whose child loaded all maxFill probe
// filters: the charge fell since the limit was chosen (other processes
// freed filters), and MeasureJITCharge starts over.
var errFillWide = errors.New("the window is too wide (the charge fell meanwhile)")

// MaxMeasuredStack is the largest modelled stack charge MeasureJITCharge
// accepts, in bytes: its fills must stay under maxFill probe filters.
// Measure a prefix of a bigger stack and scale.
const MaxMeasuredStack = 128 << 10

// prober lowers bpf_jit_limit and runs unprivileged probe children. A load
// of s bytes succeeds exactly when charge + s <= limit
// (kernel/bpf/core.c: bpf_jit_charge_modmem).
type prober struct {
	g      *limitGuard
	probes int
	base   int64 // drain's limit, 0 before the coarse search
}

// fill sets the limit to l and returns how many probe filters one
// unprivileged child loads before seccomp(2) fails with errno 524.
func (b *prober) fill(ctx context.Context, l int64) (int, error) {
	b.probes++
	stack := make([][]byte, maxFill)
	for i := range stack {
		stack[i] = probeFilter
	}
	h, err := holdStack(ctx, stack, true, func() error { return b.g.Set(l) })
	if rerr := b.g.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return 0, err
	}
	n, errno := h.Installed, h.Errno
	h.Release()
	switch {
	case errno == 0:
		return 0, fmt.Errorf("probe fill at bpf_jit_limit %d: all %d probe filters loaded: %w", l, maxFill, errFillWide)
	case errno != ErrnoENOTSUPP:
		return 0, fmt.Errorf("probe fill at bpf_jit_limit %d: filter %d: seccomp(2): %w", l, n+1, errno)
	}
	return n, b.drain(ctx)
}

// drain waits until the probe filters of the last fill are freed: the
// kernel frees them from a work queue (bpf_prog_free_deferred), which
// takes a while for thousands. Drained means one probe loads again at
// b.base (a limit just above the charge before the fills); it gives up
// after 2 s and lets the next fill see the difference.
// fine returns the charge by bisection with single probe filters in
// [around-window, around+window], to the byte: the lowest limit L* at
// which a probe loads is charge + s.
func (b *prober) fine(ctx context.Context, around, window, s int64) (int64, error) {
	lo := max(0, around-window)
	hi := min(around+window, b.g.orig)
	lstar, err := b.bisect(ctx, lo, hi)
	if err != nil {
		return 0, err
	}
	return lstar - s, nil
}

func (b *prober) drain(ctx context.Context) error {
	if b.base == 0 {
		time.Sleep(100 * time.Millisecond)
		return nil
	}
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		ok, err := b.loads(ctx, b.base)
		if err != nil || ok {
			return err
		}
	}
	return nil
}

// loads reports whether an unprivileged child loads one probe filter at
// limit l.
func (b *prober) loads(ctx context.Context, l int64) (bool, error) {
	b.probes++
	h, err := holdStack(ctx, [][]byte{probeFilter}, true, func() error { return b.g.Set(l) })
	if rerr := b.g.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return false, err
	}
	ok, errno := h.Errno == 0, h.Errno
	h.Release()
	if !ok && errno != ErrnoENOTSUPP {
		return false, fmt.Errorf("probe load at bpf_jit_limit %d: seccomp(2): %w", l, errno)
	}
	if ok {
		time.Sleep(20 * time.Millisecond)
	}
	return ok, nil
}

// coarse returns a limit above the charge by at most res bytes plus one
// probe filter, by bisection from hi (doubled up to the original limit
// until a probe loads).
func (b *prober) coarse(ctx context.Context, hi, res int64) (int64, error) {
	return b.search(ctx, 0, hi, res)
}

// bisect returns the lowest limit in (lo, hi] at which a probe loads
// (hi raised while it does not).
func (b *prober) bisect(ctx context.Context, lo, hi int64) (int64, error) {
	return b.search(ctx, lo, hi, 1)
}

func (b *prober) search(ctx context.Context, lo, hi, res int64) (int64, error) {
	for {
		ok, err := b.loads(ctx, hi)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		if hi >= b.g.orig {
			return 0, fmt.Errorf("a probe filter does not load even at the original bpf_jit_limit %d", b.g.orig)
		}
		lo, hi = hi, min(hi+max(hi-lo, 4096), b.g.orig)
	}
	for hi-lo > res {
		mid := lo + (hi-lo)/2
		ok, err := b.loads(ctx, mid)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// MeasureJITCharge measures the kernel's current JIT charge and, when
// stack is not empty, the charge of that stack (root only; ErrNotRoot
// otherwise), by lowering bpf_jit_limit and loading probe filters
// (`ret ALLOW`) in children without capabilities until errno 524:
//
//  1. a coarse bisection with one probe filter finds a limit L0 within
//     4 KiB above the charge C (starting from the vmallocinfo upper bound);
//  2. fills: at L = L0 + 32 KiB a child loads nA probes, at L + 32 KiB nB,
//     so the probe's charge s = 32 KiB / (nB - nA), rounded to the
//     allocator's 64-byte chunk, and C = L - nA·s;
//  3. with the stack loaded in a holder child, a fill at Ls = L + 1.25 ×
//     the model's stack charge loads nS probes; fills at Ls without it,
//     before and after, load n1 and n2: S = ((n1 + n2)/2 - nS)·s; this is
//     repeated stackRepeats times and StackBytes is the median.
//
// Each fill is one child loading up to 3600 filters in a row, so the
// charge other processes add or free meanwhile matters only within its
// few tens of milliseconds; averaging the fills around the stack cancels a
// linear drift. The limit is restored on every exit path (limitGuard) and
// never raised. modelStack is the model's charge of the stack, to size the
// window (bytes).
func MeasureJITCharge(ctx context.Context, stack [][]byte, modelStack int64) (m ChargeMeasurement, err error) {
	if modelStack > MaxMeasuredStack {
		return m, fmt.Errorf("measure the JIT charge of a stack of %d bytes (model): over %d bytes, the probe fills would exceed MAX_INSNS_PER_PATH; measure fewer filters", modelStack, MaxMeasuredStack)
	}
	for attempt := 0; ; attempt++ {
		m, err = measureJITCharge(ctx, stack, modelStack)
		if !errors.Is(err, errFillWide) || attempt == 2 {
			return m, err
		}
	}
}

// measureJITCharge is one attempt of MeasureJITCharge: it lowers
// bpf_jit_limit (restoring it on return), finds the current charge by
// probe fills and, for a non-empty stack, the stack's charge (bytes).
func measureJITCharge(ctx context.Context, stack [][]byte, modelStack int64) (m ChargeMeasurement, err error) {
	g, note, err := newLimitGuard()
	if err != nil {
		return m, err
	}
	defer g.Restore()
	if note != "" {
		m.Notes = append(m.Notes, note)
	}
	m.Limit = g.orig
	b := &prober{g: g}
	defer func() { m.Probes, m.Lowered = b.probes, g.Lowered }()
	hi := int64(4 << 20)
	if ji := ReadJITInfo(); ji.VmallocErr == "" && ji.Vmalloc.JITUpperBound() > 0 {
		hi = ji.Vmalloc.JITUpperBound() + 64<<10
	}
	hi = min(hi, g.orig)
	l0, err := b.coarse(ctx, hi, 4096)
	if err != nil {
		return m, err
	}
	b.base = min(l0+8192, g.orig)
	l := min(l0+fillWindow, g.orig)
	if err := b.probeCharge(ctx, &m, l); err != nil {
		return m, err
	}
	if len(stack) > 0 {
		if err := b.stackCharge(ctx, &m, stack, min(l+modelStack+modelStack/4, g.orig)); err != nil {
			return m, err
		}
	}
	if err := g.Restore(); err != nil {
		return m, err
	}
	return m, nil
}

// probeCharge sets m.ProbeBytes, the charge of one probe program rounded
// to the allocator's chunk, from the median of three pairs of fills at
// limits l and l+fillStep, and m.Current, the charge (bytes) before the
// fills at l; the fills go to m.Fills. Other processes' loads and frees
// between two fills blur single pairs either way.
func (b *prober) probeCharge(ctx context.Context, m *ChargeMeasurement, l int64) error {
	type pair struct {
		na int
		s  float64
	}
	var pairs []pair
	for range 3 {
		a, err := b.fill(ctx, l)
		if err != nil {
			return err
		}
		nb, err := b.fill(ctx, min(l+fillStep, b.g.orig))
		if err != nil {
			return err
		}
		m.Fills = append(m.Fills, a, nb)
		if nb > a {
			pairs = append(pairs, pair{a, float64(fillStep) / float64(nb-a)})
		}
	}
	if len(pairs) < 2 {
		return fmt.Errorf("probe fills %v at %d and %d bytes disagree: the charge changed too much meanwhile; retry on a quieter machine", m.Fills, l, l+fillStep)
	}
	slices.SortFunc(pairs, func(x, y pair) int { return cmp.Compare(x.s, y.s) })
	med := pairs[len(pairs)/2]
	na := med.na
	m.ProbeBytes = max(1, int64(med.s/jitmem.ChunkSize+0.5)) * jitmem.ChunkSize
	m.Current = l - int64(na)*m.ProbeBytes
	return nil
}

// stackCharge sets m.StackBytes, the median over stackRepeats holds of
// stack of the charge (bytes) it adds, each the probe fills at limit ls
// while it is held against the mean of those before and after; the fills
// go to m.Fills and each estimate to m.StackSamples.
func (b *prober) stackCharge(ctx context.Context, m *ChargeMeasurement, stack [][]byte, ls int64) error {
	prev, err := b.fill(ctx, ls)
	if err != nil {
		return err
	}
	m.Fills = append(m.Fills, prev)
	for range stackRepeats {
		h, err := HoldStack(ctx, stack, true)
		if err != nil {
			return err
		}
		if h.Errno != 0 {
			h.Release()
			return fmt.Errorf("hold the stack: filter %d of %d: seccomp(2): %w", h.Installed+1, len(stack), h.Errno)
		}
		ns, err := b.fill(ctx, ls)
		h.Release()
		if err != nil {
			return err
		}
		next, err := b.fill(ctx, ls)
		if err != nil {
			return err
		}
		m.Fills = append(m.Fills, ns, next)
		m.StackSamples = append(m.StackSamples, int64((float64(prev+next)/2-float64(ns))*float64(m.ProbeBytes)))
		prev = next
	}
	sorted := slices.Clone(m.StackSamples)
	slices.Sort(sorted)
	m.StackBytes = sorted[len(sorted)/2]
	m.Filters = len(stack)
	return nil
}

// BudgetValidation is the outcome of ValidateBudget. Bytes throughout.
// Its Current is the charge re-measured (one fill) right before the loads.
type BudgetValidation struct {
	ChargeMeasurement
	// TestLimit is the lowered bpf_jit_limit the stacks were loaded under.
	TestLimit int64
	// PredictedStackBytes is the model's charge of one stack (the input).
	PredictedStackBytes int64
	// Predicted is floor((TestLimit − Current) / PredictedStackBytes);
	// PredictedMeasured the same with the measured StackBytes.
	Predicted, PredictedMeasured int64
	// Loaded is the number of holder children that loaded the whole stack
	// before the first errno 524; FailedAt the filter index at which that
	// child failed (-1 if none failed within MaxChildren).
	Loaded   int
	FailedAt int
	// CapEff is the loading threads' effective capabilities.
	CapEff string
	// CurrentAfter is the charge re-measured after the holders exited:
	// its distance from Current is how much other processes moved the
	// charge during the experiment.
	CurrentAfter int64
}

// ValidateBudget checks the budget arithmetic on this machine (root only):
// it measures the current charge and the stack's charge
// (MeasureJITCharge), lowers bpf_jit_limit to Current + headroom, where
// headroom holds count predicted stacks and half of one more, then starts
// holder children that load the stack without capabilities until one fails
// with errno 524 (at most 2·count+4), releases them and restores the
// limit. predictedStackBytes is the model's charge of one stack.
func ValidateBudget(ctx context.Context, stack [][]byte, predictedStackBytes int64, count int) (BudgetValidation, error) {
	var v BudgetValidation
	v.FailedAt = -1
	v.PredictedStackBytes = predictedStackBytes
	m, err := MeasureJITCharge(ctx, stack, predictedStackBytes)
	v.ChargeMeasurement = m
	if err != nil {
		return v, err
	}
	// Let the measurement's holder give its charge back
	// (bpf_prog_free_deferred runs from a work queue).
	time.Sleep(200 * time.Millisecond)
	g, note, err := newLimitGuard()
	if err != nil {
		return v, err
	}
	defer g.Restore()
	if note != "" {
		v.Notes = append(v.Notes, note)
	}
	// The charge right before, by bisection with single probes (which
	// leave nothing to free), after the measurement's filters are freed.
	b := &prober{g: g, base: m.Current + 2*m.ProbeBytes}
	if err := b.drain(ctx); err != nil {
		return v, err
	}
	if v.Current, err = b.fine(ctx, m.Current, 64<<10, m.ProbeBytes); err != nil {
		return v, err
	}
	v.TestLimit = v.Current + int64(count)*predictedStackBytes + predictedStackBytes/2
	v.Predicted = (v.TestLimit - v.Current) / predictedStackBytes
	if m.StackBytes > 0 {
		v.PredictedMeasured = (v.TestLimit - v.Current) / m.StackBytes
	}
	var holders []*Holder
	defer func() {
		for _, h := range holders {
			h.Release()
		}
	}()
	for i := 0; i < 2*count+4; i++ {
		// The limit is low only while each child loads; the stacks
		// already loaded keep their charge.
		h, err := holdStack(ctx, stack, true, func() error { return g.Set(v.TestLimit) })
		if rerr := g.Reset(); err == nil {
			err = rerr
		}
		if err != nil {
			return v, err
		}
		holders = append(holders, h)
		v.CapEff = h.CapEff
		if h.Errno == ErrnoENOTSUPP {
			v.FailedAt = h.Installed
			break
		}
		if h.Errno != 0 {
			return v, fmt.Errorf("holder %d: filter %d: seccomp(2): %w", i+1, h.Installed+1, h.Errno)
		}
		v.Loaded++
	}
	for _, h := range holders {
		h.Release()
	}
	holders = nil
	// The charge after, to show how far others moved it meanwhile.
	b.base = v.Current + 2*m.ProbeBytes
	if err := b.drain(ctx); err != nil {
		return v, err
	}
	if v.CurrentAfter, err = b.fine(ctx, v.Current, 64<<10, m.ProbeBytes); err != nil {
		return v, err
	}
	v.Probes += b.probes
	if err := g.Restore(); err != nil {
		return v, err
	}
	v.Lowered += g.Lowered
	return v, nil
}
