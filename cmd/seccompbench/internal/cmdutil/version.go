package cmdutil

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version returns the module version and VCS revision from build info
// ("devel" without either: a build with -buildvcs=false, as GOFLAGS on the
// project's machines sets, records no revision).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	for _, s := range bi.Settings {
		// A pseudo-version (v0.0.0-date-rev) already names the revision.
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, s.Value[:12]) {
			v += "+" + s.Value[:12]
		}
	}
	return v
}

// VersionLine is what `seccompbench version` and `--version` print: the
// tool version (see Version), the Go toolchain and the platform.
func VersionLine() string {
	return fmt.Sprintf("seccompbench %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// WriteVersion writes VersionLine to w and, when verbose, the build
// settings and module dependencies from build info ("build\tKEY=VALUE",
// "dep\tPATH\tVERSION" lines).
func WriteVersion(w io.Writer, verbose bool) {
	fmt.Fprint(w, VersionLine())
	if !verbose {
		return
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, s := range bi.Settings {
		fmt.Fprintf(w, "build\t%s=%s\n", s.Key, s.Value)
	}
	for _, m := range bi.Deps {
		fmt.Fprintf(w, "dep\t%s\t%s\n", m.Path, m.Version)
	}
}
