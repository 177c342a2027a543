// selftest-method: the kernel seccomp selftest's benchmark *method*
// (tools/testing/selftests/seccomp/seccomp_benchmark.c), written anew for
// seccompbench's reference comparison (docs/benchmarks.md): in one
// process, time a getppid() loop natively, then after stacking 1 and 2
// filters the action cache serves ("bitmapped": ret ALLOW), then 1 and 2
// filters it cannot serve ("full": they load instruction_pointer first).
// Filters cannot be removed, so every phase stacks on the previous ones,
// as in the selftest. Pinned to the highest allowed CPU.
//
// Build and run: gcc -O2 -o /tmp/selftest-method selftest-method.c && /tmp/selftest-method [loops]
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

// ns per getppid() over loops calls.
static double timed(unsigned long loops) {
	uint64_t t0 = now_ns();
	for (unsigned long i = 0; i < loops; i++)
		syscall(__NR_getppid);
	return (double)(now_ns() - t0) / loops;
}

static void pin_highest(void) {
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) == 0) {
			printf("pinned to CPU %d\n", cpu);
			return;
		}
	}
}

static void install(int full) {
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter uncached[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = full
		? (struct sock_fprog){.len = 3, .filter = uncached}
		: (struct sock_fprog){.len = 1, .filter = allow};
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		perror("seccomp");
		exit(1);
	}
}

int main(int argc, char **argv) {
	unsigned long loops = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;
	pin_highest();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("prctl");
		return 1;
	}
	timed(loops / 10); // warm up
	double native = timed(loops);
	install(0);
	double bitmap1 = timed(loops);
	install(0);
	double bitmap2 = timed(loops);
	install(1);
	double full1 = timed(loops);
	install(1);
	double full2 = timed(loops);
	printf("loops %lu\n", loops);
	printf("native            %.1f ns/getppid\n", native);
	printf("1 bitmapped       %.1f\n", bitmap1);
	printf("2 bitmapped       %.1f\n", bitmap2);
	printf("+1 full (3 total) %.1f\n", full1);
	printf("+2 full (4 total) %.1f\n", full2);
	printf("entry (1 bitmapped - native)        %+.1f ns\n", bitmap1 - native);
	printf("per bitmapped filter (2 - 1)        %+.1f ns\n", bitmap2 - bitmap1);
	printf("first full filter (full1 - bitmap2) %+.1f ns\n", full1 - bitmap2);
	printf("per full filter (full2 - full1)     %+.1f ns\n", full2 - full1);
	return 0;
}
