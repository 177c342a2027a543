package notify

// auditArchNative is AUDIT_ARCH_X86_64 (include/uapi/linux/audit.h), the
// seccomp_data.arch of native syscalls.
const auditArchNative = 0xc000003e
