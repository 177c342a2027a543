package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
)

// ReadProcStatus reads the seccomp state of process pid. Errors wrap the
// *os.PathError of the status file (fs.ErrNotExist when the process is
// gone).
func ReadProcStatus(pid int) (result.ProcStatus, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/status")
	if errors.Is(err, fs.ErrNotExist) {
		return result.ProcStatus{Pid: pid}, fmt.Errorf("read status of pid %d: no such process (%w)", pid, err)
	}
	if err != nil {
		return result.ProcStatus{Pid: pid}, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	st, err := sys.ParseProcStatus(b)
	st.Pid = pid
	if err != nil {
		return st, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	if c, err := os.ReadFile(dir + "/cmdline"); err == nil {
		st.Cmdline = []string{}
		for _, a := range bytes.Split(bytes.TrimRight(c, "\x00"), []byte{0}) {
			if len(a) > 0 || len(st.Cmdline) > 0 {
				st.Cmdline = append(st.Cmdline, string(a))
			}
		}
	}
	return st, nil
}
