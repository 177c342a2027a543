// top-wrap: install a raw seccomp filter N times with its action cache
// defeated, then exec a program under the stack, as a container runtime
// would (no_new_privs, seccomp(SECCOMP_SET_MODE_FILTER, 0)). The cache is
// defeated the way `seccompbench run --cache defeat` does it: `ld
// [instruction_pointer]` (BPF_LD|BPF_W|BPF_ABS, k = 8) is prepended, which
// keeps every verdict but makes the kernel's cache emulator
// (kernel/seccomp.c: seccomp_is_const_allow) give up, so every filter runs
// on every syscall. CAP_SYS_ADMIN is dropped from the effective set before
// loading, as `run`'s default --loader unprivileged does, so the JIT adds
// what it adds for unprivileged loaders.
//
// Build: gcc -O2 -static -o top-wrap top-wrap.c
// Run:   ./top-wrap FILTER.bpf N [--cache on] -- PROG [ARG...]
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void drop_sys_admin(void) {
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d)) {
		perror("top-wrap: capget");
		exit(1);
	}
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	if (syscall(SYS_capset, &h, d)) {
		perror("top-wrap: capset");
		exit(1);
	}
}

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: top-wrap FILTER.bpf N [--cache on] -- PROG [ARG...]\n");
		return 2;
	}
	const char *path = argv[1];
	int n = atoi(argv[2]);
	int i = 3, defeat = 1;
	if (!strcmp(argv[i], "--cache") && i + 1 < argc) {
		defeat = strcmp(argv[i + 1], "on") != 0;
		i += 2;
	}
	if (strcmp(argv[i], "--") || i + 1 >= argc) {
		fprintf(stderr, "top-wrap: expected -- PROG\n");
		return 2;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	static struct sock_filter insns[BPF_MAXINSNS + 1];
	int off = defeat ? 1 : 0;
	size_t len = fread(insns + off, sizeof(insns[0]), BPF_MAXINSNS, f);
	fclose(f);
	if (len == 0) {
		fprintf(stderr, "top-wrap: %s: empty filter\n", path);
		return 1;
	}
	if (defeat)
		insns[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8);
	struct sock_fprog prog = {.len = (unsigned short)(len + off), .filter = insns};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("top-wrap: PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	drop_sys_admin();
	for (int k = 0; k < n; k++) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
			fprintf(stderr, "top-wrap: seccomp filter %d of %d: %s\n", k + 1, n, strerror(errno));
			return 1;
		}
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "top-wrap: exec %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
