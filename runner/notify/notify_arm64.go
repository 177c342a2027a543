package notify

// auditArchNative is AUDIT_ARCH_AARCH64 (include/uapi/linux/audit.h), the
// seccomp_data.arch of native syscalls.
const auditArchNative = 0xc00000b7
