package filters

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/bpf"
)

// SourceError is a problem at one place in a filter source (a Beats policy,
// an OCI profile, a systemd unit, a raw BPF file). Error formats it like a
// compiler: "file:line:col: msg; hint", leaving out the line and column
// when 0 and the hint when empty. Several problems found at once are
// returned joined with errors.Join; errors.As then yields the first.
type SourceError struct {
	// File is the source path or built-in name (e.g. "embedded:default").
	File string
	// Line and Col are 1-based; 0 when unknown.
	Line, Col int
	// Err is the format's sentinel (e.g. beats.ErrBadPolicy,
	// oci.ErrBadProfile, systemd.ErrBadUnit, ErrBadRaw), or an error
	// wrapping it that says what is wrong when Msg is empty.
	Err error
	// Msg says what is wrong, quoting the value; empty when Err says it.
	Msg string
	// Value is the offending value as written, empty if none.
	Value string
	// Hint says what is allowed instead, empty if nothing useful.
	Hint string
	// FailsOpen marks a warning (a problem that does not stop loading)
	// whose ignored item would have denied a syscall or taken one off an
	// allow list, e.g. a misspelt name on a systemd "SystemCallFilter=~"
	// line: the filters then allow what the source means to deny. Lint
	// reports such warnings as errors.
	FailsOpen bool
	// Refused marks a problem for which the source's own consumer
	// refuses the whole input, e.g. a systemd unit systemd does not
	// start (systemd.ErrHandoffWrite), kept as a warning only because
	// the loader was asked to go on (systemd.Options.ContinueRefused).
	// Lint reports such warnings as errors.
	Refused bool
}

// Error formats the problem as "file:line:col: msg; hint".
func (e *SourceError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		fmt.Fprint(&b, e.Err)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns Err.
func (e *SourceError) Unwrap() error { return e.Err }

// Lines maps byte offsets of one input to 1-based lines and columns (the
// column counts bytes). NewLines indexes where every line starts in one
// pass; each lookup is then a binary search, so a reader that places
// every token of an input stays linear in its size.
type Lines struct {
	starts []int // byte offset where each line starts; starts[0] == 0
	size   int   // len(data)
}

// NewLines indexes the line starts of data.
func NewLines(data []byte) *Lines {
	starts := make([]int, 1, 1+bytes.Count(data, []byte{'\n'}))
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Lines{starts: starts, size: len(data)}
}

// LineCol returns the 1-based line and column of byte off; 0, 0 for an
// offset outside the data (off == len(data), the end, is inside).
func (l *Lines) LineCol(off int) (line, col int) {
	if off < 0 || off > l.size {
		return 0, 0
	}
	// The first line starting after off is the one after off's line.
	line = sort.SearchInts(l.starts, off+1)
	return line, off - l.starts[line-1] + 1
}

// LineCol converts a byte offset into data to a 1-based line and column
// (the column counts bytes); 0, 0 for an offset outside data. It indexes
// data for one lookup: a reader placing many offsets builds NewLines once.
func LineCol(data []byte, off int) (line, col int) {
	return NewLines(data).LineCol(off)
}

// BaseName returns a path's last element without its extension, the
// short name programs loaded from it get ("docker-default" stays as is).
func BaseName(path string) string {
	b := filepath.Base(path)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// SourceProgram returns the Program of insns compiled from the source file
// name whose content is data: named BaseName(name), and identified by the
// hex SHA-256 of data.
func SourceProgram(name string, data []byte, insns []bpf.RawInstruction) *Program {
	sum := sha256.Sum256(data)
	return &Program{
		Name:         BaseName(name),
		Source:       name,
		SourceSHA256: hex.EncodeToString(sum[:]),
		Insns:        insns,
	}
}

// Source is what every format loader returns: the filters one source
// installs, in install order, and how they relate.
type Source struct {
	// Name is the path or built-in name the source was loaded from.
	Name string
	// Format is the format's name, e.g. "policy", "oci", "raw-bpf",
	// "systemd-unit".
	Format string
	// Filters are the compiled filters, index 0 installed first.
	Filters []*Program
	// Stacked is true when the filters are installed together, one stack
	// (as systemd installs a unit's), and false when each is an
	// alternative on its own (every other format has exactly one filter).
	Stacked bool
	// Arches names each filter's architecture where the format knows it
	// (systemd: "x86", "x32", "x86_64" or "all"), else nil.
	Arches []string
	// Parts groups Filters by what installed them, in install order
	// (systemd: one part per directive); their counts sum to len(Filters).
	// Nil when the source is one part.
	Parts []Part
	// Warnings are problems that do not stop loading, e.g. unknown
	// syscall names, located like errors (Err is nil).
	Warnings []*SourceError
	// Toolchain names the toolchain version whose reading was modeled
	// where the format has several (systemd: "systemd 257 (Debian
	// 257.13-1~deb13u1)"); empty otherwise.
	Toolchain string
}

// Part is a run of consecutive filters of a Source installed by one item
// of it, e.g. a systemd directive.
type Part struct {
	// Name names the item, e.g. "RestrictNamespaces".
	Name string
	// Count is the number of filters it installed (0 if none).
	Count int
}

// Prefixes returns the filter count after each part: the stacks that exist
// once each part is installed, e.g. [3 5 8 ...]. The last entry is
// len(Filters); nil without parts.
func (s *Source) Prefixes() []int {
	var out []int
	n := 0
	for _, p := range s.Parts {
		n += p.Count
		out = append(out, n)
	}
	return out
}

// Stack returns the filters as a Stack, index 0 installed first.
func (s *Source) Stack() Stack { return append(Stack(nil), s.Filters...) }

// WarningText formats warnings as Program.Warnings holds them: one
// "file:line:col: message" each.
func WarningText(ws []*SourceError) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Error())
	}
	return out
}
