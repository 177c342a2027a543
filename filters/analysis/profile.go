package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seccompbench/seccompbench/filters"
)

// ProfileEntry is one syscall of a profile: how often a workload made it and,
// if the profile says, how long it spent in it.
type ProfileEntry struct {
	// Name is the syscall name as the profile spells it.
	Name string
	// Arch is the ABI the calls were made through: "x86_64" unless a
	// strace table was for the 32-bit ("i386") or x32 personality.
	Arch string
	// Nr is the syscall's table number in Arch, -1 when the name is not in
	// the table (Known false).
	Nr int
	// Known reports that Name is a syscall of Arch.
	Known bool
	// Calls is the number of calls.
	Calls int64
	// Errors is the number of calls that returned an error (strace's errors
	// column), 0 if not given.
	Errors int64
	// Seconds is the time spent in the syscall over all calls, in seconds;
	// NaN when the profile has no times.
	Seconds float64
}

// Profile is a workload's syscall profile.
type Profile struct {
	// Source names the file it came from.
	Source string
	// Format is "strace" (the summary table of strace -c / strace -f -c)
	// or "csv".
	Format string
	// Entries are the syscalls in file order; a name listed twice for the
	// same ABI is merged into its first entry.
	Entries []ProfileEntry
	// HasSeconds reports that every entry has a time.
	HasSeconds bool
	// TotalCalls and TotalSeconds are the sums over Entries (known and
	// unknown names), in calls and seconds; TotalSeconds is NaN without
	// times.
	TotalCalls   int64
	TotalSeconds float64
	// Warnings are things the parser skipped or doubted, e.g. unknown
	// syscall names or a total line that disagrees with the rows.
	Warnings []string
}

// ErrBadProfile is returned (wrapped in a *SourceError) when a profile is
// neither a strace -c summary nor a syscall,count[,seconds] CSV.
var ErrBadProfile = errors.New("invalid syscall profile")

// ParseProfile reads a syscall profile: the summary table that `strace -c`
// or `strace -f -c` prints (header line, dashed lines, rows, a `total` row;
// further tables after "System call usage summary for 32 bit mode:" or
// "... for x32 mode:" are attributed to those ABIs; any other text around
// the tables, such as the traced program's output, is ignored), or a CSV of
// `syscall,count[,seconds]` lines (an optional header line, `#` comments
// and blank lines allowed). The format is detected from the content.
// Syscall names are looked up in the ABI's table: unknown names are kept
// with Known false and a warning, and strace's names for numbers it does
// not know (syscall_0x1c1, syscall_449) are resolved as numbers. The rows
// of a strace table are checked against its total row. Errors wrap
// ErrBadProfile in a *SourceError with the line number.
func ParseProfile(name string, data []byte) (*Profile, error) {
	p := &Profile{Source: name}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: binary data, not a text profile: give the summary `strace -c -f CMD` prints (on stderr, or with -o FILE) or a CSV of syscall,count[,seconds]", ErrBadProfile)}
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var err error
	if straceHeader(lines) >= 0 {
		p.Format = "strace"
		err = p.parseStrace(lines)
	} else {
		p.Format = "csv"
		err = p.parseCSV(lines)
	}
	if err != nil {
		return nil, err
	}
	if len(p.Entries) == 0 {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: no syscalls in the %s profile", ErrBadProfile, p.Format)}
	}
	p.HasSeconds = true
	for _, e := range p.Entries {
		p.TotalCalls += e.Calls
		p.TotalSeconds += e.Seconds
		if math.IsNaN(e.Seconds) {
			p.HasSeconds = false
		}
	}
	if !p.HasSeconds {
		p.TotalSeconds = math.NaN()
	}
	return p, nil
}

// isDashes reports whether s is a strace table rule: dashes and spaces only.
func isDashes(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "- ") == ""
}

// straceHeader returns the index of the first strace table header (a line
// naming a calls column, followed by a rule), or -1.
func straceHeader(lines []string) int {
	for i := 0; i+1 < len(lines); i++ {
		if isDashes(lines[i+1]) && slices.Contains(strings.Fields(lines[i]), "calls") {
			return i
		}
	}
	return -1
}

// straceColumns maps a header line to column names; "% time" is one column.
func straceColumns(header string) []string {
	f := strings.Fields(strings.Replace(header, "% time", "%time", 1))
	for i, c := range f {
		if c == "name" {
			f[i] = "syscall"
		}
	}
	return f
}

func (p *Profile) parseStrace(lines []string) error {
	arch := filters.ArchX86_64
	seen := map[string]int{} // arch/name -> index in Entries
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "System call usage summary for") {
			switch {
			case strings.Contains(l, "32 bit mode"):
				arch = filters.ArchI386
			case strings.Contains(l, "x32 mode"):
				arch = filters.ArchX32
			default:
				arch = filters.ArchX86_64
			}
			continue
		}
		if i+1 >= len(lines) || !isDashes(lines[i+1]) || !slices.Contains(strings.Fields(l), "calls") {
			continue
		}
		cols := straceColumns(l)
		if !slices.Contains(cols, "syscall") {
			return p.lineErr(i, "strace header %q has no syscall column", l)
		}
		i += 2
		var sumCalls int64
		for ; i < len(lines) && !isDashes(lines[i]); i++ {
			if strings.TrimSpace(lines[i]) == "" {
				return p.lineErr(i, "blank line inside a strace table: truncated output?")
			}
			row, err := straceRow(cols, lines[i])
			if err != nil {
				return p.lineErr(i, "%v", err)
			}
			sumCalls += row.Calls
			p.add(arch, row, seen, i)
		}
		if i+1 < len(lines) {
			// The total row follows the closing rule.
			if tot, err := straceRow(cols, lines[i+1]); err == nil && tot.Name == "total" {
				if tot.Calls != sumCalls {
					p.Warnings = append(p.Warnings, fmt.Sprintf("line %d: total row says %d calls, the rows sum to %d", i+2, tot.Calls, sumCalls))
				}
				i++
			} else {
				p.Warnings = append(p.Warnings, fmt.Sprintf("line %d: strace table has no total row", i+2))
			}
		}
	}
	return nil
}

// straceRow maps the fields of one table row to a ProfileEntry (Name,
// Calls, Errors, Seconds). The errors column is blank for syscalls that
// never failed, so a row may have one field fewer than the header.
func straceRow(cols []string, line string) (ProfileEntry, error) {
	f := strings.Fields(line)
	c := cols
	if len(f) == len(cols)-1 {
		c = make([]string, 0, len(cols))
		for _, x := range cols {
			if x != "errors" {
				c = append(c, x)
			}
		}
	}
	if len(f) != len(c) {
		return ProfileEntry{}, fmt.Errorf("row %q has %d fields, the header %d", strings.TrimSpace(line), len(f), len(cols))
	}
	e := ProfileEntry{Seconds: math.NaN()}
	for k, name := range c {
		v := f[k]
		var err error
		switch name {
		case "syscall":
			e.Name = v
		case "calls":
			e.Calls, err = strconv.ParseInt(v, 10, 64)
		case "errors":
			e.Errors, err = strconv.ParseInt(v, 10, 64)
		case "seconds":
			e.Seconds, err = strconv.ParseFloat(v, 64)
		}
		if err != nil {
			return e, fmt.Errorf("column %s: %s", name, numberText(v, name == "seconds"))
		}
	}
	if e.Calls < 0 {
		return e, fmt.Errorf("negative calls %d", e.Calls)
	}
	if e.Errors < 0 {
		return e, fmt.Errorf("negative errors %d", e.Errors)
	}
	if e.Seconds < 0 || math.IsInf(e.Seconds, 0) {
		return e, fmt.Errorf("seconds %v: want a finite number ≥ 0", e.Seconds)
	}
	return e, nil
}

func (p *Profile) parseCSV(lines []string) error {
	seen := map[string]int{}
	first := true
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, ",")
		for k := range f {
			f[k] = strings.TrimSpace(f[k])
		}
		if len(f) < 2 || len(f) > 3 {
			return p.lineErr(i, "want syscall,count[,seconds], got %d fields in %q", len(f), l)
		}
		calls, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			if first {
				first = false // a header line
				continue
			}
			return p.lineColErr(i, fieldCol(lines[i], 1), "count %s", numberText(f[1], false))
		}
		first = false
		if calls < 0 {
			return p.lineErr(i, "negative count %d", calls)
		}
		e := ProfileEntry{Name: f[0], Calls: calls, Seconds: math.NaN()}
		if len(f) == 3 {
			if e.Seconds, err = strconv.ParseFloat(f[2], 64); err != nil || !(e.Seconds >= 0) || math.IsInf(e.Seconds, 0) {
				return p.lineColErr(i, fieldCol(lines[i], 2), "seconds %q is not a number ≥ 0", f[2])
			}
		}
		p.add(filters.ArchX86_64, e, seen, i)
	}
	return nil
}

// add resolves e's name in arch and appends it, merging duplicates.
func (p *Profile) add(arch *filters.Arch, e ProfileEntry, seen map[string]int, line int) {
	e.Arch, e.Nr = arch.Name, -1
	if nr, ok := resolveProfileName(arch, e.Name); ok {
		e.Nr, e.Known = nr, true
	} else {
		p.Warnings = append(p.Warnings, fmt.Sprintf("line %d: %q is not a %s syscall; its %d calls are not estimated", line+1, e.Name, arch.Name, e.Calls))
	}
	key := arch.Name + "/" + e.Name
	if k, ok := seen[key]; ok {
		q := &p.Entries[k]
		if q.Calls > math.MaxInt64-e.Calls {
			q.Calls = math.MaxInt64 // saturate: a merged count never wraps negative
		} else {
			q.Calls += e.Calls
		}
		q.Errors += e.Errors
		q.Seconds += e.Seconds
		return
	}
	seen[key] = len(p.Entries)
	p.Entries = append(p.Entries, e)
}

// resolveProfileName looks name up in arch, also accepting strace's names
// for syscalls it cannot name (syscall_0x1c1, syscall_449) and decimal
// numbers.
func resolveProfileName(arch *filters.Arch, name string) (int, bool) {
	if nr, ok := arch.Lookup(name); ok {
		return nr, true
	}
	s := strings.TrimPrefix(name, "syscall_")
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	if arch.Mask != 0 {
		n &^= int64(arch.Mask)
	}
	return int(n), true
}

func (p *Profile) lineErr(i int, format string, args ...any) error {
	return p.lineColErr(i, 0, format, args...)
}

// lineColErr is lineErr at a 1-based column (0: the line only).
func (p *Profile) lineColErr(i, col int, format string, args ...any) error {
	return &filters.SourceError{File: p.Source, Line: i + 1, Col: col, Err: fmt.Errorf("%w: %s", ErrBadProfile, fmt.Sprintf(format, args...))}
}

// fieldCol is the 1-based column (in bytes) where the comma-separated
// field k of line starts, after its leading blanks.
func fieldCol(line string, k int) int {
	at := 0
	for ; k > 0; k-- {
		j := strings.IndexByte(line[at:], ',')
		if j < 0 {
			return 0
		}
		at += j + 1
	}
	for at < len(line) && (line[at] == ' ' || line[at] == '\t') {
		at++
	}
	return at + 1
}

// numberText says what is wrong with v, a count (a whole number ≥ 0) or,
// with real set, a number of seconds, in words rather than strconv's:
// `"abc" is not a whole number`, `"1e99" is too large`.
func numberText(v string, real bool) string {
	if real {
		return fmt.Sprintf("%q is not a number ≥ 0", v)
	}
	if _, err := strconv.ParseInt(v, 10, 64); errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%q is too large (the most is %d)", v, int64(math.MaxInt64))
	}
	return fmt.Sprintf("%q is not a whole number", v)
}

// ProfileCost is one profile entry evaluated through a stack with all
// arguments 0.
type ProfileCost struct {
	ProfileEntry
	// Cost is the stack's verdict, cache prediction and instructions for
	// the syscall; zero when the entry is not Known.
	Cost SyscallCost
}

// EvaluateProfile evaluates every known syscall of the profile through the
// stack (Analyze: verdict, action cache, instructions executed, arguments
// and instruction pointer 0), in profile order; unknown entries are
// returned with a zero Cost. It returns an error wrapping
// ErrInvalidProgram if a filter is invalid.
func EvaluateProfile(s filters.Stack, p *Profile) ([]ProfileCost, error) {
	arches := map[string]*filters.Arch{}
	var list []*filters.Arch
	for _, e := range p.Entries {
		if _, ok := arches[e.Arch]; !ok && e.Known {
			a, err := filters.LookupArch(e.Arch)
			if err != nil {
				return nil, fmt.Errorf("evaluate profile: %w", err)
			}
			arches[e.Arch] = a
			list = append(list, a)
		}
	}
	idx := map[string]SyscallCost{}
	if len(list) > 0 {
		costs, err := Analyze(s, list)
		if err != nil {
			return nil, fmt.Errorf("evaluate profile: %w", err)
		}
		for _, c := range costs {
			idx[fmt.Sprintf("%s/%d", c.Arch, c.Nr)] = c
		}
	}
	out := make([]ProfileCost, 0, len(p.Entries))
	for _, e := range p.Entries {
		pc := ProfileCost{ProfileEntry: e}
		if e.Known {
			c, ok := idx[fmt.Sprintf("%s/%d", e.Arch, e.Nr)]
			if !ok {
				// A number the table does not name: analyze it alone.
				var err error
				if c, err = AnalyzeSyscall(s, arches[e.Arch], e.Nr); err != nil {
					return nil, fmt.Errorf("evaluate profile: %w", err)
				}
			}
			pc.Cost = c
		}
		out = append(out, pc)
	}
	return out, nil
}
