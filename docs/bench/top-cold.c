// top-cold: time one syscall at a time with the caches left cold between
// calls, as a service's calls find them after it slept or ran other code,
// or warm (no eviction), to set beside `seccompbench top`'s live figures
// (docs/top.md, "Cold filters").
//
// Each iteration first evicts: it writes a buffer of EVICT_KB KiB with a
// 64-byte stride (pushing code and data, the filters' JIT images and
// struct seccomp_data included, out of the caches: on the CPUs this
// project ran on the L2 holds the L1 instruction cache's lines) and walks
// a chain of indirect calls through JUMPS distinct functions (training the
// branch predictors on other targets). Then it reads CLOCK_MONOTONIC (the
// vDSO), makes the syscall, reads the clock again. It prints the trimmed
// mean (middle 80 %) and the median of the per-call times in ns, and the
// same for an empty interval (two clock reads, no syscall), so the clock's
// own cost can be taken out: run it bare and under the stack
// (top-wrap FILTER.bpf N -- top-cold ...) and take the difference.
//
// With TOP_COLD_LOG=FILE in the environment it appends, every 100,000
// calls, "REALTIME_NS PROCESS_CPU_NS CALLS" to FILE, so that a sampler's
// call count over a window can be held to the calls really made in it
// (calls per CPU ns × the window's CPU time).
//
// Build: gcc -O2 -static -o top-cold top-cold.c
// Run:   ./top-cold NR ITERS EVICT_KB [A0 [A1 [A2]]]
//        (NR 288 = accept4 on x86_64; with A0 = -1 it fails EBADF after
//        the filters ran, the same path through them as a real accept4)
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define JUMPS 512

static volatile uint64_t sink;

#define F(n) static void __attribute__((noinline)) f##n(void) { sink += n; }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
#define F64(n) F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6) F8(n##7)
F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7) F64(8)
#define R(n) f##n,
#define R8(n) R(n##0) R(n##1) R(n##2) R(n##3) R(n##4) R(n##5) R(n##6) R(n##7)
#define R64(n) R8(n##0) R8(n##1) R8(n##2) R8(n##3) R8(n##4) R8(n##5) R8(n##6) R8(n##7)
static void (*fns[JUMPS])(void) = {R64(1) R64(2) R64(3) R64(4) R64(5) R64(6) R64(7) R64(8)};

static uint64_t now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void summary(const char *what, uint64_t *t, long n) {
	qsort(t, n, sizeof t[0], cmp);
	long lo = n / 10, hi = n - n / 10;
	double s = 0;
	for (long i = lo; i < hi; i++)
		s += t[i];
	printf("%s trimmed_mean_ns %.1f median_ns %llu n %ld\n", what, s / (hi - lo), (unsigned long long)t[n / 2], n);
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: top-cold NR ITERS EVICT_KB [A0 [A1 [A2]]]\n");
		return 2;
	}
	long nr = atol(argv[1]), iters = atol(argv[2]), kb = atol(argv[3]);
	long a[3] = {0, 0, 0};
	for (int i = 0; i < 3 && 4 + i < argc; i++)
		a[i] = atol(argv[4 + i]);
	size_t size = (size_t)kb * 1024;
	char *buf = size ? malloc(size) : NULL;
	uint64_t *ts = calloc(iters, sizeof *ts), *te = calloc(iters, sizeof *te);
	unsigned x = 12345;
	FILE *log = NULL;
	if (getenv("TOP_COLD_LOG") && !(log = fopen(getenv("TOP_COLD_LOG"), "w"))) {
		perror("top-cold: TOP_COLD_LOG");
		return 1;
	}
	for (long i = 0; i < iters; i++) {
		if (log && i % 100000 == 0) {
			struct timespec rt, cpu;
			clock_gettime(CLOCK_REALTIME, &rt);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
			fprintf(log, "%llu %llu %ld\n", (unsigned long long)rt.tv_sec * 1000000000ull + rt.tv_nsec,
				(unsigned long long)cpu.tv_sec * 1000000000ull + cpu.tv_nsec, i);
			fflush(log);
		}
		for (size_t j = 0; j < size; j += 64)
			buf[j] = (char)j;
		if (size)
			for (int j = 0; j < JUMPS; j++) {
				x = x * 1103515245u + 12345u;
				fns[(x >> 8) % JUMPS]();
			}
		uint64_t t0 = now();
		syscall(nr, a[0], a[1], a[2]);
		uint64_t t1 = now();
		ts[i] = t1 - t0;
		t0 = now();
		t1 = now();
		te[i] = t1 - t0;
	}
	if (log)
		fclose(log);
	summary("syscall", ts, iters);
	summary("empty", te, iters);
	return 0;
}
