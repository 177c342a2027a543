package command

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// kmsgReader reads the kernel log (/dev/kmsg, man 4 kmsg) for the audit
// records seccomp writes when a filter kills or traps a task: type 1326
// (AUDIT_SECCOMP) with pid=, arch= and syscall= (kernel/seccomp.c:
// seccomp_log, for the actions listed in
// /proc/sys/kernel/seccomp/actions_logged; kill_process and kill_thread
// by default). The exit status alone never names the syscall: a SIGSYS
// from SECCOMP_RET_KILL_* carries no siginfo the parent can read. A nil
// *kmsgReader (no access to /dev/kmsg) finds nothing.
type kmsgReader struct {
	f *os.File
}

// auditRecord is what one seccomp audit record says.
type auditRecord struct {
	pid, syscall int
	arch         uint32
}

// openKmsg opens the kernel log without blocking, or returns nil.
func openKmsg() *kmsgReader {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	k := &kmsgReader{f: os.NewFile(uintptr(fd), "/dev/kmsg")}
	k.skipToEnd()
	return k
}

// Close closes the log.
func (k *kmsgReader) Close() error {
	if k == nil {
		return nil
	}
	return k.f.Close()
}

// skipToEnd moves past every record logged so far.
func (k *kmsgReader) skipToEnd() {
	if k == nil {
		return
	}
	unix.Seek(int(k.f.Fd()), 0, unix.SEEK_END)
}

// seccompRecord returns the seccomp audit record logged since the last
// skipToEnd for pid, else the last one for any process (a child of the
// command), polling up to 50 ms for it to appear (audit records reach the
// log through kauditd).
func (k *kmsgReader) seccompRecord(pid int) (auditRecord, bool) {
	if k == nil {
		return auditRecord{}, false
	}
	var last auditRecord
	found := false
	buf := make([]byte, 8192)
	for try := 0; try < 5; try++ {
		for {
			n, err := unix.Read(int(k.f.Fd()), buf)
			if errors.Is(err, syscall.EPIPE) {
				continue // records were overwritten; go on with the next
			}
			if err != nil || n <= 0 {
				break
			}
			if rec, ok := parseSeccompAudit(buf[:n]); ok {
				if rec.pid == pid {
					return rec, true
				}
				last, found = rec, true
			}
		}
		if found {
			return last, true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return last, found
}

// parseSeccompAudit parses one kmsg record such as
// "5,812,1321071278,-;audit: type=1326 audit(…): auid=… pid=22032 comm=… sig=31 arch=c000003e syscall=317 compat=0 ip=… code=0x0".
func parseSeccompAudit(line []byte) (auditRecord, bool) {
	if !bytes.Contains(line, []byte("type=1326 ")) {
		return auditRecord{}, false
	}
	field := func(key string) (string, bool) {
		i := bytes.Index(line, []byte(" "+key+"="))
		if i < 0 {
			return "", false
		}
		v := line[i+len(key)+2:]
		if j := bytes.IndexAny(v, " \n"); j >= 0 {
			v = v[:j]
		}
		return string(v), true
	}
	var rec auditRecord
	p, ok1 := field("pid")
	sc, ok2 := field("syscall")
	ar, ok3 := field("arch")
	if !ok1 || !ok2 || !ok3 {
		return rec, false
	}
	var err1, err2, err3 error
	rec.pid, err1 = strconv.Atoi(p)
	rec.syscall, err2 = strconv.Atoi(sc)
	a, err3 := strconv.ParseUint(ar, 16, 32)
	rec.arch = uint32(a)
	return rec, err1 == nil && err2 == nil && err3 == nil
}
