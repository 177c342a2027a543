// top-loop: a known loop for checking `seccompbench top`: N getppid()
// calls through the raw syscall instruction path of libc's syscall(),
// then exit. Prints the number of calls and the wall time on stderr.
//
// Build: gcc -O2 -static -o top-loop top-loop.c
// Run:   ./top-loop [calls [delay_ms]]   (default 30000000 calls, no delay;
//        the delay lets a sampler attach before the timed loop starts)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 30000000ul;
	if (argc > 2)
		usleep(1000 * strtoul(argv[2], NULL, 10));
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < n; i++)
		syscall(__NR_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	fprintf(stderr, "top-loop: %lu getppid in %.3f s, %.1f ns each\n", n, ns / 1e9, ns / n);
	return 0;
}
