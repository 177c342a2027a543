//go:build ignore

// mkfixtures records a sample stream of a running process for the tests
// of internal/kstack: go run mkfixtures.go -pid PID -duration 2s -o ../../internal/kstack/testdata/NAME
// writes NAME.jsonl.gz (the samples, kstack.WriteStream) and NAME.kallsyms
// (the part of /proc/kallsyms the samples' addresses need). Needs root.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/runner/live"
)

func main() {
	pid := flag.Int("pid", 0, "process to sample")
	d := flag.Duration("duration", 2*time.Second, "how long")
	out := flag.String("o", "", "output path without extension")
	flag.Parse()
	if err := record(*pid, *d, *out); err != nil {
		fmt.Fprintln(os.Stderr, "mkfixtures:", err)
		os.Exit(1)
	}
}

func record(pid int, d time.Duration, out string) error {
	s, err := live.Open(live.Options{Pids: []int{pid}})
	if err != nil {
		return err
	}
	defer s.Close()
	time.Sleep(d)
	s.Flush()
	samples, err := s.Take()
	if err != nil {
		return err
	}
	ks, err := live.ReadKallsyms()
	if err != nil {
		return err
	}
	syms, err := kstack.ParseKallsyms(ks)
	if err != nil {
		return err
	}
	var addrs []uint64
	for i := range samples {
		samples[i].Tgid, samples[i].Tid = 1000, 1000+samples[i].Tid-uint32(pid)
		addrs = append(addrs, samples[i].Stack...)
	}
	if err := os.WriteFile(out+".kallsyms", syms.Subset(addrs), 0o644); err != nil {
		return err
	}
	f, err := os.Create(out + ".jsonl.gz")
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	if err := kstack.WriteStream(zw, samples); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Printf("%d samples, %d addresses\n", len(samples), len(addrs))
	return f.Close()
}
