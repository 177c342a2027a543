package snapd

// values are the names snap-seccomp resolves in argument tokens
// (cmd/snap-seccomp/main.go: seccompResolver), with the values of the
// kernel's uapi headers they come from: socket domains and types
// (include/linux/socket.h, AF_* and PF_* alike), prctl options
// (include/uapi/linux/prctl.h), getpriority's which
// (include/uapi/linux/resource.h), setns/clone flags
// (include/uapi/linux/sched.h), the tty ioctls snapd denies
// (include/uapi/asm-generic/ioctls.h), quotactl commands
// (include/uapi/linux/quota.h, xfs/xqm.h), mknod's file types
// (include/uapi/linux/stat.h), netlink protocols
// (include/uapi/linux/netlink.h), ptrace requests
// (include/uapi/linux/ptrace.h, arch/x86/include/uapi/asm/ptrace-abi.h)
// and kcmp types (include/uapi/linux/kcmp.h). The values are those of
// x86 and arm, the ABIs modelled here.
var values = map[string]uint64{}

func init() {
	families := map[string]uint64{
		"UNIX": 1, "LOCAL": 1, "INET": 2, "AX25": 3, "IPX": 4, "APPLETALK": 5, "NETROM": 6,
		"BRIDGE": 7, "ATMPVC": 8, "X25": 9, "INET6": 10, "ROSE": 11, "NETBEUI": 13,
		"SECURITY": 14, "KEY": 15, "NETLINK": 16, "PACKET": 17, "ASH": 18, "ECONET": 19,
		"RDS": 21, "SNA": 22, "IRDA": 23, "PPPOX": 24, "WANPIPE": 25, "LLC": 26, "IB": 27,
		"MPLS": 28, "CAN": 29, "TIPC": 30, "BLUETOOTH": 31, "IUCV": 32, "RXRPC": 33,
		"ISDN": 34, "PHONET": 35, "IEEE802154": 36, "CAIF": 37, "ALG": 38, "NFC": 39,
		"VSOCK": 40, "QIPCRTR": 42, "XDP": 44, "CONN": 123,
	}
	for n, v := range families {
		values["AF_"+n], values["PF_"+n] = v, v
	}
	for n, v := range map[string]uint64{
		"SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_RDM": 4, "SOCK_SEQPACKET": 5, "SOCK_PACKET": 10,

		"PR_SET_PDEATHSIG": 1, "PR_GET_PDEATHSIG": 2, "PR_GET_DUMPABLE": 3, "PR_SET_DUMPABLE": 4,
		"PR_GET_UNALIGN": 5, "PR_SET_UNALIGN": 6, "PR_GET_KEEPCAPS": 7, "PR_SET_KEEPCAPS": 8,
		"PR_GET_FPEMU": 9, "PR_SET_FPEMU": 10, "PR_GET_FPEXC": 11, "PR_SET_FPEXC": 12,
		"PR_GET_TIMING": 13, "PR_SET_TIMING": 14, "PR_SET_NAME": 15, "PR_GET_NAME": 16,
		"PR_GET_ENDIAN": 19, "PR_SET_ENDIAN": 20, "PR_GET_SECCOMP": 21, "PR_SET_SECCOMP": 22,
		"PR_CAPBSET_READ": 23, "PR_CAPBSET_DROP": 24, "PR_GET_TSC": 25, "PR_SET_TSC": 26,
		"PR_GET_SECUREBITS": 27, "PR_SET_SECUREBITS": 28, "PR_SET_TIMERSLACK": 29, "PR_GET_TIMERSLACK": 30,
		"PR_TASK_PERF_EVENTS_DISABLE": 31, "PR_TASK_PERF_EVENTS_ENABLE": 32, "PR_MCE_KILL": 33,
		"PR_MCE_KILL_GET": 34, "PR_SET_MM": 35, "PR_SET_CHILD_SUBREAPER": 36, "PR_GET_CHILD_SUBREAPER": 37,
		"PR_SET_NO_NEW_PRIVS": 38, "PR_GET_NO_NEW_PRIVS": 39, "PR_GET_TID_ADDRESS": 40,
		"PR_SET_THP_DISABLE": 41, "PR_GET_THP_DISABLE": 42, "PR_MPX_ENABLE_MANAGEMENT": 43,
		"PR_MPX_DISABLE_MANAGEMENT": 44, "PR_CAP_AMBIENT": 47, "PR_SET_PTRACER": 0x59616d61,
		"PR_CAP_AMBIENT_IS_SET": 1, "PR_CAP_AMBIENT_RAISE": 2, "PR_CAP_AMBIENT_LOWER": 3, "PR_CAP_AMBIENT_CLEAR_ALL": 4,
		"PR_SET_MM_START_CODE": 1, "PR_SET_MM_END_CODE": 2, "PR_SET_MM_START_DATA": 3, "PR_SET_MM_END_DATA": 4,
		"PR_SET_MM_START_STACK": 5, "PR_SET_MM_START_BRK": 6, "PR_SET_MM_BRK": 7, "PR_SET_MM_ARG_START": 8,
		"PR_SET_MM_ARG_END": 9, "PR_SET_MM_ENV_START": 10, "PR_SET_MM_ENV_END": 11, "PR_SET_MM_AUXV": 12,
		"PR_SET_MM_EXE_FILE": 13,

		"PRIO_PROCESS": 0, "PRIO_PGRP": 1, "PRIO_USER": 2,

		"CLONE_NEWNS": 0x00020000, "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
		"CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,

		"TIOCSTI": 0x5412, "TIOCLINUX": 0x541c,

		"Q_SYNC": 0x800001, "Q_QUOTAON": 0x800002, "Q_QUOTAOFF": 0x800003, "Q_GETFMT": 0x800004,
		"Q_GETINFO": 0x800005, "Q_SETINFO": 0x800006, "Q_GETQUOTA": 0x800007, "Q_SETQUOTA": 0x800008,
		"Q_XQUOTAON": 0x5801, "Q_XQUOTAOFF": 0x5802, "Q_XGETQUOTA": 0x5803, "Q_XSETQLIM": 0x5804,
		"Q_XGETQSTAT": 0x5805, "Q_XQUOTARM": 0x5806,

		"S_IFREG": 0o100000, "S_IFCHR": 0o020000, "S_IFBLK": 0o060000, "S_IFIFO": 0o010000, "S_IFSOCK": 0o140000,

		"NETLINK_ROUTE": 0, "NETLINK_USERSOCK": 2, "NETLINK_FIREWALL": 3, "NETLINK_SOCK_DIAG": 4,
		"NETLINK_INET_DIAG": 4, "NETLINK_NFLOG": 5, "NETLINK_XFRM": 6, "NETLINK_SELINUX": 7,
		"NETLINK_ISCSI": 8, "NETLINK_AUDIT": 9, "NETLINK_FIB_LOOKUP": 10, "NETLINK_CONNECTOR": 11,
		"NETLINK_NETFILTER": 12, "NETLINK_IP6_FW": 13, "NETLINK_DNRTMSG": 14, "NETLINK_KOBJECT_UEVENT": 15,
		"NETLINK_GENERIC": 16, "NETLINK_SCSITRANSPORT": 18, "NETLINK_ECRYPTFS": 19, "NETLINK_RDMA": 20,
		"NETLINK_CRYPTO": 21,

		"PTRACE_PEEKDATA": 2, "PTRACE_PEEKUSR": 3, "PTRACE_PEEKUSER": 3, "PTRACE_CONT": 7,
		"PTRACE_GETREGS": 12, "PTRACE_GETFPREGS": 14, "PTRACE_ATTACH": 16, "PTRACE_DETACH": 17,
		"PTRACE_GETFPXREGS": 18, "PTRACE_GETREGSET": 0x4204,

		"KCMP_FILE": 0, "KCMP_VM": 1, "KCMP_FILES": 2, "KCMP_FS": 3, "KCMP_SIGHAND": 4,
		"KCMP_IO": 5, "KCMP_SYSVSEM": 6, "KCMP_EPOLL_TFD": 7,
	} {
		values[n] = v
	}
}

// systemUsers are the IDs of the users and groups a u:NAME or g:NAME
// token may name without a lookup: root, and the system usernames snapd
// creates itself with fixed IDs (snap/system_usernames.go:
// SupportedSystemUsernames), user and group alike. snap-seccomp looks any
// name up in the host's passwd and group databases; a model that must give
// the same bytes on every host cannot.
var systemUsers = map[string]uint64{
	"root":           0,
	"snap_daemon":    584788,
	"snap_microk8s":  584789,
	"snap_aziotedge": 584790,
	"snap_aziotdu":   584791,
	"_daemon_":       584792,
}

// negArgSyscalls are the syscalls whose arguments may be negative in a
// profile: 32-bit uid_t/gid_t arguments (and copy_file_range's flags),
// compared on their low 32 bits only (snap-seccomp:
// syscallsWithNegArgsMaskHi32).
var negArgSyscalls = map[string]bool{
	"chown": true, "chown32": true, "fchown": true, "fchown32": true, "fchownat": true,
	"lchown": true, "lchown32": true, "setgid": true, "setgid32": true, "setregid": true,
	"setregid32": true, "setresgid": true, "setresgid32": true, "setreuid": true,
	"setreuid32": true, "setresuid": true, "setresuid32": true, "setuid": true,
	"setuid32": true, "copy_file_range": true,
}
