package sys

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/runner/result"
)

// ParseProcStatus parses the fields of result.ProcStatus from a /proc/PID/status
// file; missing numeric fields stay -1.
func ParseProcStatus(b []byte) (result.ProcStatus, error) {
	st := result.ProcStatus{TracerPid: -1, NoNewPrivs: -1, SeccompMode: -1, SeccompFilters: -1}
	ints := map[string]*int{
		"TracerPid": &st.TracerPid, "NoNewPrivs": &st.NoNewPrivs,
		"Seccomp": &st.SeccompMode, "Seccomp_filters": &st.SeccompFilters,
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			st.Name = v
		case "State":
			st.State = v
		default:
			if p, ok := ints[k]; ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return st, fmt.Errorf("parse %s %q: %w", k, v, err)
				}
				*p = n
			}
		}
	}
	return st, nil
}

// ThreadFilters returns Seccomp_filters of thread tid of this process, or -1
// if the kernel does not report it (before Linux 5.9) or it cannot be read.
func ThreadFilters(tid int) int {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1
	}
	st, err := ParseProcStatus(b)
	if err != nil {
		return -1
	}
	return st.SeccompFilters
}
