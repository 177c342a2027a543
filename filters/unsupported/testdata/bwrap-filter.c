/* Deny TIOCSTI for a bubblewrap sandbox; build and write `prog` to the
 * file descriptor given to bwrap --seccomp. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

static struct sock_filter prog[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16 /* ioctl */, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x5412 /* TIOCSTI */, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
