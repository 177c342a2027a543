// top-loop: a known loop for checking `seccompbench top`: N getppid()
// calls through the raw syscall instruction path of libc's syscall(),
// then exit. Prints the number of calls and the wall time on stderr.
//
// Build: gcc -O2 -static -o top-loop top-loop.c
// Run:   ./top-loop [calls [delay_ms [chunk_log]]]   (default 30000000
//        calls, no delay; the delay lets a sampler attach before the timed
//        loop starts). With chunk_log, every 100000 calls append a line
//        "END_REALTIME_NS NS_PER_CALL" for that chunk to the file, so that
//        a sampler attached and detached during one run can be compared
//        within the same process (docs/bench/top-check.sh, check 4).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 100000ul

static double since(const struct timespec *a, const struct timespec *b) {
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv) {
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 30000000ul;
	if (argc > 2)
		usleep(1000 * strtoul(argv[2], NULL, 10));
	FILE *log = NULL;
	if (argc > 3 && !(log = fopen(argv[3], "w"))) {
		perror(argv[3]);
		return 1;
	}
	if (log)
		setvbuf(log, NULL, _IOLBF, 0); // one write(2) per chunk: the file is whole when killed
	struct timespec a, b, c0, c1, rt;
	clock_gettime(CLOCK_MONOTONIC, &a);
	c0 = a;
	for (unsigned long i = 0; i < n; i++) {
		syscall(__NR_getppid);
		if (log && (i + 1) % CHUNK == 0) {
			clock_gettime(CLOCK_MONOTONIC, &c1);
			clock_gettime(CLOCK_REALTIME, &rt);
			fprintf(log, "%lld%09ld %.1f\n", (long long)rt.tv_sec, rt.tv_nsec, since(&c0, &c1) / CHUNK);
			c0 = c1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (log)
		fclose(log);
	double ns = since(&a, &b);
	fprintf(stderr, "top-loop: %lu getppid in %.3f s, %.1f ns each\n", n, ns / 1e9, ns / n);
	return 0;
}
