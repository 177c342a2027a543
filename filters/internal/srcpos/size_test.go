package srcpos

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"syscall"

	"github.com/seccompbench/seccompbench/internal/testutils"
)

// ociShaped returns a pretty-printed OCI seccomp profile of at least size
// bytes: docker-default's shape (names, action, args, includes) repeated,
// one value per line as docker and podman write them.
func ociShaped(size int) []byte {
	var b bytes.Buffer
	b.WriteString("{\n\t\"defaultAction\": \"SCMP_ACT_ERRNO\",\n\t\"defaultErrnoRet\": 1,\n\t\"syscalls\": [\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "\t\t{\n\t\t\t\"names\": [\n\t\t\t\t\"read%d\",\n\t\t\t\t\"write%d\"\n\t\t\t],\n"+
			"\t\t\t\"action\": \"SCMP_ACT_ALLOW\",\n\t\t\t\"args\": [\n\t\t\t\t{\n\t\t\t\t\t\"index\": 0,\n"+
			"\t\t\t\t\t\"value\": %d,\n\t\t\t\t\t\"op\": \"SCMP_CMP_EQ\"\n\t\t\t\t}\n\t\t\t],\n"+
			"\t\t\t\"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"], \"minKernel\": \"4.8\"},\n\t\t\t\"excludes\": {}\n\t\t}", i, i, i)
	}
	b.WriteString("\n\t]\n}\n")
	return b.Bytes()
}

// parseTime returns the best of three ParseJSON CPU times of data,
// failing the test if it does not parse.
func parseTime(t *testing.T, data []byte) time.Duration {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := cpuTime(t)
		if _, err := ParseJSON(data); err != nil {
			t.Fatalf("parse %d bytes: %v", len(data), err)
		}
		best = min(best, cpuTime(t)-start)
	}
	return best
}

// TestParseJSONLinear: placing every token is linear in the input, so
// four times the input takes at most ten times as long (best of three
// runs each; a line count from the start per token, as before, made it
// sixteen; linear parsing gives four, and the larger input's GC and cache
// misses have taken it to 6.2 on a CI host), and the 16 MiB input cap parses in under 2 s. Times are the
// process's CPU time, which other processes on a busy machine do not
// inflate as they do the wall clock. The race detector slows everything
// several times over, so under -race only the ratio is checked, at a
// quarter of the sizes.
func TestParseJSONLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 21 MiB three times; -short skips it")
	}
	base := 1 << 20
	if testutils.Race {
		base = 256 << 10 // the ratio holds at any size; the detector is slow
	}
	small, large := ociShaped(base), ociShaped(4*base)
	ts, tl := parseTime(t, small), parseTime(t, large)
	ratio := float64(tl) / float64(ts)
	t.Logf("%d KiB: %v, %d KiB: %v (×%.2f)", base>>10, ts, 4*base>>10, tl, ratio)
	if ratio > 10 {
		t.Errorf("4× the input took %.1f× the time (%v vs %v), want ≤ 10× (quadratic is 16×): not linear", ratio, tl, ts)
	}
	if testutils.Race {
		return // 16 MiB under the detector takes a minute and proves nothing more
	}
	cap16 := ociShaped(16 << 20)
	start, cpu0 := time.Now(), cpuTime(t)
	n, err := ParseJSON(cap16)
	took, cpu := time.Since(start), cpuTime(t)-cpu0
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("16 MiB: %v wall, %v CPU", took, cpu)
	// The last value sits on the file's last lines: positions are right
	// at the end too.
	last := n.Get("syscalls").Vals[len(n.Get("syscalls").Vals)-1]
	lastOff := bytes.LastIndex(cap16, []byte("\n\t\t{\n")) + 3
	if want := 1 + bytes.Count(cap16[:lastOff], []byte{'\n'}); last.At.Line != want || last.At.Col != 3 {
		t.Errorf("last rule at %d:%d, want %d:3", last.At.Line, last.At.Col, want)
	}
	if cpu > 2*time.Second {
		t.Errorf("16 MiB took %v of CPU, want ≤ 2 s", cpu)
	}
}

// BenchmarkParseJSON measures ParseJSON per input size; ns/op over
// MB/s stays flat when parsing is linear.
func BenchmarkParseJSON(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20, 4 << 20, 16 << 20} {
		data := ociShaped(size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuTime returns the CPU time, user and system, the test process has used
// so far: unlike the wall clock it does not count time other processes on
// a busy machine take from this one.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
