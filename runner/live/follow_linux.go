package live

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// taskTgidOffset returns the byte offset of tgid in the running kernel's
// struct task_struct (include/linux/sched.h), read from its BTF
// (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF). The member may sit in
// an anonymous struct (randomized_struct_fields_start); those are searched
// too. Errors wrap ErrNotSupported when the kernel has no BTF.
func taskTgidOffset() (int32, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return 0, fmt.Errorf("read the kernel's BTF for struct task_struct: %w: %w", err, ErrNotSupported)
	}
	var task *btf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		return 0, fmt.Errorf("find struct task_struct in the kernel's BTF: %w: %w", err, ErrNotSupported)
	}
	off, ok := memberOffset(task.Members, "tgid")
	if !ok {
		return 0, fmt.Errorf("struct task_struct in the kernel's BTF has no member tgid: %w", ErrNotSupported)
	}
	return int32(off), nil
}

// memberOffset returns the byte offset of the member called name among
// members, looking into anonymous structs and unions.
func memberOffset(members []btf.Member, name string) (uint32, bool) {
	for _, m := range members {
		if m.Name == name {
			return uint32(m.Offset / 8), true
		}
		if m.Name != "" {
			continue
		}
		var inner []btf.Member
		switch t := btf.UnderlyingType(m.Type).(type) {
		case *btf.Struct:
			inner = t.Members
		case *btf.Union:
			inner = t.Members
		}
		if off, ok := memberOffset(inner, name); ok {
			return uint32(m.Offset/8) + off, true
		}
	}
	return 0, false
}

// follow loads the fork-following program (followProgram) and attaches it
// to the sched_process_fork raw tracepoint.
func (s *Session) follow() error {
	off, err := taskTgidOffset()
	if err != nil {
		return err
	}
	s.follower, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "sb_follow", Type: ebpf.RawTracepoint, License: "Dual MIT/GPL",
		Instructions: followProgram(s.targets.FD(), off)})
	if err != nil {
		return bpfError("load the fork-following program (BPF_PROG_TYPE_RAW_TRACEPOINT)", err)
	}
	s.followLink, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sched_process_fork", Program: s.follower})
	if err != nil {
		return bpfError("attach the fork-following program (raw tracepoint sched_process_fork)", err)
	}
	return nil
}

// SetEnabled starts (true) or stops (false) the cpu-clock events of every
// CPU: while stopped no sample is taken and the sampled processes pay
// nothing for sampling; the fork-following program stays attached.
func (s *Session) SetEnabled(on bool) error {
	req := uint(unix.PERF_EVENT_IOC_DISABLE)
	if on {
		req = unix.PERF_EVENT_IOC_ENABLE
	}
	var errs []error
	for i, fd := range s.perfFDs {
		if err := unix.IoctlSetInt(fd, req, 0); err != nil {
			errs = append(errs, fmt.Errorf("set cpu-clock event %d enabled=%v: %w", i, on, err))
		}
	}
	return errors.Join(errs...)
}
