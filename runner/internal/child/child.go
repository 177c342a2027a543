// Package child is the re-exec protocol of the runner: the parent
// re-executes its own binary with SECCOMPBENCH_CHILD naming a kind of
// child, writes a spec on its standard input and reads a report from its
// standard output. Each kind of child (the measuring loop child, the
// command workload's timing process and wrapper, the JIT holder) lives in
// its own package and hands its entry point to Main as a Kind; this
// package knows none of them.
package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Env is the environment variable that turns a re-executed binary into a
// child. Its value is the name of a Kind, which includes the protocol
// version of that kind ("loop-1").
const Env = "SECCOMPBENCH_CHILD"

// MinTimeout is the least time a child gets to report: process start-up,
// reading the spec and installing the filters take milliseconds, but a
// loaded machine may stall them for seconds.
const MinTimeout = 10 * time.Second

// MaxWork bounds the timed work of one child: a run refuses a
// configuration whose calibrated loops or runs, without any filter, would
// take longer (error wrapping ErrTooMuchWork), instead of running a child
// for hours. Defaults take about 10 ms.
const MaxWork = 5 * time.Minute

// ErrTooMuchWork is returned (wrapped) when a configuration asks a child
// for more than MaxWork of timed work.
var ErrTooMuchWork = errors.New("too much work per child")

// Kind is one kind of child: the value of Env that selects it and its
// entry point, which never returns (it exits the process).
type Kind struct {
	// Name is the value of Env, with the kind's protocol version, e.g.
	// "loop-1".
	Name string
	// Main is the child's entry point; it must exit the process.
	Main func()
}

// IsChild reports whether this process was started as a child of some
// kind (Env is set). The program's main must then call Main before doing
// anything else.
func IsChild() bool { return os.Getenv(Env) != "" }

// Main runs the entry point of the kind Env names and never returns. A
// kind not among kinds (a binary mismatch between parent and child)
// exits with status 2 and a message on standard error.
func Main(kinds ...Kind) {
	name := os.Getenv(Env)
	for _, k := range kinds {
		if k.Name == name {
			k.Main()
			os.Exit(3) // Main must not return
		}
	}
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	fmt.Fprintf(os.Stderr, "seccompbench child: unknown kind %s=%q; this binary knows %s\n", Env, name, strings.Join(names, ", "))
	os.Exit(2)
}

// Environ is the parent's environment plus Env=kind and the runtime
// settings every child needs: no asynchronous preemption (a preempted
// measuring thread would make syscalls the filters may deny), no GC, no
// automatic GOMAXPROCS updates.
func Environ(kind string) []string {
	env := []string{Env + "=" + kind}
	godebug := "asyncpreemptoff=1,updatemaxprocs=0"
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case Env, "GOGC", "GOMAXPROCS":
			continue
		case "GODEBUG":
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GODEBUG="+godebug, "GOGC=off")
}

// ReadSpec reads the spec on r (the child's standard input) into v, which
// must be a pointer to the kind's spec type.
func ReadSpec(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read child spec: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode child spec: %w", err)
	}
	return nil
}

// Exit writes rep, whose Err field the caller set from err, as one JSON
// line on standard output and exits: status 3 when err is not nil, else 0.
func Exit(rep any, err error) {
	out, _ := json.Marshal(rep)
	os.Stdout.Write(append(out, '\n'))
	if err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}
