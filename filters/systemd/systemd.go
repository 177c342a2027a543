package systemd

//go:generate go run mksyscalltables.go

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// This file models the seccomp filters systemd installs for a service
// (the version of Options.SystemdVersion; exec code as 252's
// src/core/execute.c: exec_child and its apply_* helpers;
// src/shared/seccomp-util.c), on an x86_64 host. Each hardening directive
// installs its own libseccomp filter per local architecture
// (seccomp-util.c: seccomp_local_archs = x86, x32, x86_64, native last),
// each made by seccomp_init_for_arch: one architecture, bad-arch action
// ALLOW, so a filter only judges its own ABI. The directives run in
// exec_child's order, SystemCallFilter last, ProtectHostname before all
// (it is applied with the UTS namespace setup). Two changes of systemd
// 255 follow the table's version (groupTable): allow-lists answer calls
// outside @known with ENOSYS (overrideDefault, rawFilter), and set-based
// filters are laid out as libseccomp's binary tree (SetFilterTree).

// group is one system call group: help text and members (syscall
// names and nested @groups).
type group struct {
	Help  string
	Items []string
}

// groupTable is one systemd release's system call groups, generated
// from its sources into zsyscall_tables.go by mksyscalltables.go.
type groupTable struct {
	// Version is systemd's major version.
	Version int
	// Source says where the tables came from (Debian or Ubuntu source
	// package, or upstream stable tag: testdata/groups/N/SOURCE).
	Source string
	// AllowListENOSYS: an allow-list answers calls outside @known with
	// ENOSYS instead of SystemCallErrorNumber= (systemd 255 and later,
	// src/shared/seccomp-util.c: override_default_action).
	AllowListENOSYS bool
	// SetFilterTree: the filters systemd builds from a system call set
	// (SystemCallFilter=, SystemCallLog=, ProtectKernelModules=,
	// ProtectClock=, PrivateDevices=) are laid out as libseccomp's binary
	// tree, SCMP_FLTATR_CTL_OPTIMIZE 2 (systemd 255 and later,
	// src/shared/seccomp-util.c: seccomp_load_syscall_filter_set and
	// seccomp_load_syscall_filter_set_raw); before, libseccomp's default.
	SetFilterTree bool
	// HandoffWrite: before loading SystemCallFilter=, systemd puts write
	// into an allow list and takes it out of a deny list, for the
	// handoff timestamp every unit sends (systemd 256.2 and later,
	// src/core/exec-invoke.c: apply_syscall_filter,
	// seccomp_filter_set_add_by_name); an allow list that gives write an
	// errno (~write:EROFS) then fails with EEXIST (hashmap_put).
	HandoffWrite bool
	Order        []string
	Groups       map[string]group
}

// Options says which host and which systemd behaviour to model.
type Options struct {
	// Arch is the host architecture; only "x86_64" (the default) is
	// modeled: local architectures x86, x32 and x86_64.
	Arch string
	// MDWEPrctl models systemd 254 and later on Linux 6.3 and later,
	// where MemoryDenyWriteExecute= uses prctl(PR_SET_MDWE) and installs no
	// filter (src/core/exec-invoke.c: apply_memory_deny_write_execute).
	// The default, false, is systemd 252: one filter per architecture.
	MDWEPrctl bool
	// Compiler lays out each filter's BPF: CompilerNative (the default)
	// or CompilerLibseccomp, systemd's own way (CompileLibseccomp).
	Compiler scmp.Compiler
	// DropIns are the unit's drop-in files (UNIT.d/*.conf and the
	// prefix and type-level drop-in directories), already in the order
	// systemd reads them (sorted by file name, masked ones left out:
	// formats.UnitDropIns finds them). They are parsed after the unit
	// file, each in its own name, as src/core/load-dropin.c does.
	DropIns []File
	// SystemdVersion is the systemd major version whose system call
	// groups and @known list are used (Versions lists them); 0 means
	// DefaultVersion. The filters are otherwise built as systemd 252
	// builds them, but for the two 255 changes its table says
	// (groupTable.AllowListENOSYS, SetFilterTree).
	SystemdVersion int
	// VersionNote, if set, is said in parentheses after the version in
	// Stack.GroupsVersion, e.g. why that version was chosen.
	VersionNote string
	// ContinueRefused models a unit systemd refuses to start
	// (ErrHandoffWrite) instead of failing: the refusal becomes one of
	// the stack's warnings, marked filters.SourceError.Refused (lint
	// reports it as an error), and SystemCallFilter= is built as 255
	// and earlier install it (write keeps its errno), so the rest of the
	// unit can still be checked. Commands that measure or compile leave
	// it false.
	ContinueRefused bool
}

// File is one file of a unit: its path (for messages) and content.
type File struct {
	Name string
	Data []byte
}

// Assignment is one line of a modeled directive, where it was read: the
// unit file or a drop-in. `compile --systemd-stack` lists them so that
// a user sees which file contributed which directive.
type Assignment struct {
	// File and Line locate the line (a continued line: its first line).
	File string
	Line int
	// Key and Value are the directive and its value ("" for a reset).
	Key, Value string
}

// DefaultVersion is the systemd version Options uses when SystemdVersion
// is 0: 252, the release the filter construction follows.
const DefaultVersion = 252

// ErrUnknownVersion means Options.SystemdVersion names a systemd release
// with no group table; the error text lists Versions.
var ErrUnknownVersion = errors.New("unknown systemd version")

// Versions lists the systemd major versions with group tables, oldest
// first.
func Versions() []int {
	var vs []int
	for v := range groupTables {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}

// NewestVersion is the newest systemd version with a group table.
func NewestVersion() int { vs := Versions(); return vs[len(vs)-1] }

// tableFor returns version v's group table (DefaultVersion for 0).
func tableFor(v int) (*groupTable, error) {
	if v == 0 {
		v = DefaultVersion
	}
	t, ok := groupTables[v]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownVersion, NoTableText(v))
	}
	return t, nil
}

// NearestVersions returns the versions with group tables closest to v:
// the newest one below v and the oldest one above it (one of them alone
// when v is outside Versions' range), oldest first. v itself is never
// returned, so for a version with a table it gives its neighbours.
func NearestVersions(v int) []int {
	below, above := 0, 0
	for _, t := range Versions() {
		if t < v {
			below = t
		} else if t > v && above == 0 {
			above = t
		}
	}
	var near []int
	for _, t := range []int{below, above} {
		if t != 0 {
			near = append(near, t)
		}
	}
	return near
}

// NoTableText says that systemd version v has no group table, listing
// Versions and NearestVersions, e.g. "no table for 253; tables: 249 252
// 254 ...; nearest: 252, 254".
func NoTableText(v int) string {
	list := func(vs []int, sep string) string {
		s := make([]string, len(vs))
		for i, x := range vs {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, sep)
	}
	return fmt.Sprintf("no table for %d; tables: %s; nearest: %s", v, list(Versions(), " "), list(NearestVersions(v), ", "))
}

// sourceLabels maps a SOURCE line's prefix to the word Label uses for
// where the table came from.
var sourceLabels = []struct{ prefix, word string }{
	{"debian-source systemd ", "Debian"},
	{"ubuntu-source systemd ", "Ubuntu"},
	{"upstream-source systemd ", "upstream"},
}

// Label names the table in headers: "systemd 257 (Debian 257.13-1~deb13u1
// (trixie))", "systemd 255 (Ubuntu 255.4-1ubuntu8 (noble))", "systemd 256
// (upstream 256.17 (stable tag v256.17))".
func (t *groupTable) Label() string {
	for _, f := range strings.Split(t.Source, "; ") {
		for _, l := range sourceLabels {
			if v, ok := strings.CutPrefix(f, l.prefix); ok {
				return fmt.Sprintf("systemd %d (%s %s)", t.Version, l.word, v)
			}
		}
	}
	return fmt.Sprintf("systemd %d", t.Version)
}

// Directive is one directive's share of a modeled stack.
type Directive struct {
	// Name is the unit directive, e.g. "RestrictNamespaces".
	Name string
	// Count is the number of filters it installed (one per architecture it
	// applies to; 0 if it applied to none).
	Count int
}

// Stack is the ordered set of seccomp filters systemd installs for a
// unit, as modeled from its directives.
type Stack struct {
	// Unit is the source path or name.
	Unit string
	// Programs are the filters, index 0 installed first.
	Programs []*filters.Program
	// Arches names each program's architecture ("x86", "x32", "x86_64",
	// or "all" for the SystemCallArchitectures filter).
	Arches []string
	// Directives lists the directives that installed filters, in
	// installation order; their counts sum to len(Programs).
	Directives []Directive
	// SystemdVersion is the systemd major version whose groups were used.
	SystemdVersion int
	// GroupsVersion names that table and its source, e.g.
	// "systemd 257 (Debian 257.13-1~deb13u1 (trixie))" (groupTable.Label).
	GroupsVersion string
	// Warnings are the unit's items systemd would log and ignore, e.g.
	// unknown system calls, as "file:line: message".
	Warnings []string
	// Compiler is the one that laid out the programs.
	Compiler scmp.Compiler
	// Privileged reports whether systemd loads these filters with
	// CAP_SYS_ADMIN in the effective set (Loader), so that the kernel adds
	// no branch-history barrier to them; LoaderReason says why, in words.
	// A system service manager is assumed (not systemd --user).
	Privileged   bool
	LoaderReason string
	// Files are the files read, the unit first, then its drop-ins in
	// the order they were applied.
	Files []string
	// Assignments are the lines of modeled directives, in the order
	// they were applied.
	Assignments []Assignment
	// Settings are every line of the exec sections ([Service], [Socket],
	// [Mount], [Swap] and lines before any section), modeled or not, in
	// the order applied: what SettingsDiff compares.
	Settings []Assignment
	// warnings are Warnings, located (Source).
	warnings []*filters.SourceError
}

// Stack returns the programs as a Stack (index 0 installed first).
func (s *Stack) Stack() filters.Stack { return append(filters.Stack(nil), s.Programs...) }

// Prefixes returns the filter count after each directive: the stacks
// systemd has built once that directive is applied, e.g. [3 5 8 ...]. The
// last entry is len(Programs).
func (s *Stack) Prefixes() []int { return s.Source().Prefixes() }

// String formats the stack for `compile --systemd-stack`: one line per
// filter (index, directive, arch, instructions), one per directive with
// its count, and a last line "N filters".
func (s *Stack) String() string {
	var b bytes.Buffer
	layout := ""
	if s.Compiler == scmp.CompilerLibseccomp {
		layout = ", compiled by libseccomp"
		if v, err := scmp.LibseccompVersion(); err == nil {
			layout += " " + v
		}
	}
	since := ""
	if t, err := tableFor(s.SystemdVersion); err == nil && t.AllowListENOSYS && t.SetFilterTree {
		since = ", with systemd 255's ENOSYS for allow-list misses and binary-tree set filters"
	}
	fmt.Fprintf(&b, "%s: filters as systemd %d installs them on x86_64 (%s groups%s%s), index 0 first\n", s.Unit, s.SystemdVersion, s.GroupsVersion, since, layout)
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tdirective\tarch\tinstructions")
	i := 0
	for _, d := range s.Directives {
		for k := 0; k < d.Count; k++ {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", i, d.Name, s.Arches[i], s.Programs[i].Len())
			i++
		}
	}
	tw.Flush()
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "directive\tfilters\tstack after")
	for k, d := range s.Directives {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", d.Name, d.Count, s.Prefixes()[k])
	}
	tw.Flush()
	if len(s.Files) > 1 {
		b.WriteString(s.Provenance())
	}
	seen := map[string]bool{}
	for _, p := range s.Programs {
		for _, n := range p.Notes {
			if !seen[n] {
				seen[n] = true
				fmt.Fprintf(&b, "note: %s\n", n)
			}
		}
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	fmt.Fprintf(&b, "%d filters\n", len(s.Programs))
	return b.String()
}

// Provenance lists the files read (the unit, then its drop-ins in the
// order applied) and which file contributed each modeled directive line,
// as "file:line  Key=Value" (an empty value is a reset of the list or
// setting), the way `systemctl cat` shows the merged unit.
func (s *Stack) Provenance() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nread from %d files: %s\n", len(s.Files), strings.Join(s.Files, ", "))
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "file:line\tdirective")
	for _, a := range s.Assignments {
		v := a.Value
		if v == "" {
			v = "(empty: reset)"
		}
		fmt.Fprintf(tw, "%s:%d\t%s=%s\n", a.File, a.Line, a.Key, v)
	}
	tw.Flush()
	return b.String()
}

// ErrBadUnit is returned (wrapped in a *SourceError) for a unit file line
// systemd could not parse, or a value of a modeled directive it would
// reject: a line without '=', an unterminated section header, a bad
// boolean, errno or personality.
var ErrBadUnit = errors.New("invalid systemd unit")

// ParseUnit models the seccomp filters systemd installs for the unit in
// data, as the version opt.SystemdVersion names (DefaultVersion for 0);
// name is its path, used in messages. Directives are read from the
// [Service], [Socket], [Mount] and [Swap] sections (and from lines
// before any section, so a bare list of directives works too); later lines
// override or extend earlier ones as systemd's config parsers do, and an
// empty assignment resets a list. Modeled: SystemCallFilter (allow lists
// with implicit @default, ~deny lists, @groups, name:errno, merged across
// lines), SystemCallErrorNumber, SystemCallArchitectures, SystemCallLog,
// RestrictNamespaces, RestrictAddressFamilies, MemoryDenyWriteExecute,
// RestrictRealtime, RestrictSUIDSGID (also implied by DynamicUser=yes),
// LockPersonality with Personality, ProtectKernelModules,
// ProtectKernelTunables, ProtectKernelLogs, ProtectClock, ProtectHostname
// and PrivateDevices; and the first ExecStart= command's "+" prefix, with
// which systemd applies no sandboxing and so installs no filters (a
// warning says so). Other directives are ignored, silently unless they
// start like a hardening directive without being one (a typo such as
// SystemCallFilters=, see hardeningPrefixes) or sit in a section without
// exec settings ([Unit], [Install]); those get a warning.
//
// Syntax errors are *SourceError values wrapping ErrBadUnit with the line;
// names systemd would ignore with a warning (unknown syscalls, groups,
// address families, namespace types, architectures) end up in
// Stack.Warnings.
func ParseUnit(name string, data []byte, opt Options) (*Stack, error) {
	if opt.Arch != "" && opt.Arch != "x86_64" && opt.Arch != "amd64" {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: host arch %q is not modeled; only x86_64", ErrBadUnit, opt.Arch)}
	}
	compile, err := compileFunc(opt.Compiler)
	if err != nil {
		return nil, err
	}
	tab, err := tableFor(opt.SystemdVersion)
	if err != nil {
		return nil, err
	}
	c := newUnitContext(tab)
	h := sha256.New()
	files := append([]File{{Name: name, Data: data}}, opt.DropIns...)
	for _, f := range files {
		if err := c.parseFile(f.Name, f.Data); err != nil {
			return nil, err
		}
		h.Write(f.Data)
	}
	st, err := c.stack(name, opt, compile)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		st.Files = append(st.Files, f.Name)
	}
	st.Assignments = c.assignments
	st.Settings = c.settings
	var sum [sha256.Size]byte
	if len(files) == 1 {
		sum = sha256.Sum256(data)
	} else {
		h.Sum(sum[:0])
	}
	st.SystemdVersion, st.GroupsVersion = tab.Version, tab.Label()
	if opt.VersionNote != "" {
		st.GroupsVersion += " (" + opt.VersionNote + ")"
	}
	for _, p := range st.Programs {
		p.SourceSHA256 = hex.EncodeToString(sum[:])
	}
	st.Compiler = opt.Compiler
	return st, nil
}

// ParseDirectives is ParseUnit for directives given on the
// command line: text holds "Key=Value" lines (a `--systemd` value); name
// labels it in messages, e.g. "--systemd".
func ParseDirectives(name, text string, opt Options) (*Stack, error) {
	return ParseUnit(name, []byte(text), opt)
}

// Namespace flags (include/uapi/linux/sched.h) in the order of systemd
// 252.38's namespace_info table (src/basic/namespace-util.c), which
// RestrictNamespaces= parses names with (src/shared/nsflags.c:
// namespace_flags_from_string) and seccomp_restrict_namespaces walks.
// "time" (CLONE_NEWTIME) is in that table but not in NAMESPACE_FLAGS_ALL
// (src/shared/nsflags.h), so it is never retained unless named, and a
// filter that restricts anything also refuses it.
var namespaces = []struct {
	name string
	flag uint64
}{
	{"cgroup", 0x02000000}, // CLONE_NEWCGROUP
	{"ipc", 0x08000000},    // CLONE_NEWIPC
	{"net", 0x40000000},    // CLONE_NEWNET
	{"mnt", 0x00020000},    // CLONE_NEWNS
	{"pid", 0x20000000},    // CLONE_NEWPID
	{"user", 0x10000000},   // CLONE_NEWUSER
	{"uts", 0x04000000},    // CLONE_NEWUTS
	{"time", 0x00000080},   // CLONE_NEWTIME
}

// namespacesAll is systemd's NAMESPACE_FLAGS_ALL (src/shared/nsflags.h):
// every flag of namespaces except CLONE_NEWTIME.
const namespacesAll = 0x02000000 | 0x08000000 | 0x40000000 | 0x00020000 | 0x20000000 | 0x10000000 | 0x04000000

// errnoKill is systemd's SECCOMP_ERROR_NUMBER_KILL: "kill" instead of an
// errno, meaning SCMP_ACT_KILL_PROCESS.
const errnoKill = -2

// unitContext is the part of systemd's ExecContext the seccomp model needs.
type unitContext struct {
	groups      *groupTable     // the systemd version's system call groups
	known       map[string]bool // knownNames of groups
	filter      map[string]int  // SystemCallFilter: name -> errno, -1 none, errnoKill
	filterAllow bool
	filterSet   bool
	filterLine  int
	filterFile  string // file of filterLine
	// writeErrnoAt is the line that last gave write an errno in filter
	// (~write:ERRNO, maybe through a group), for ErrHandoffWrite.
	writeErrnoAt Assignment
	errnoNum     int // SystemCallErrorNumber, default kill
	archs        map[string]bool
	logSet       bool
	log          map[string]int
	logAllow     bool
	nsRetain     uint64 // RestrictNamespaces: flags retained; nsInitial = unset
	afSet        bool
	afAllow      bool
	afs          map[int]bool
	bools        map[string]bool
	personality  int // -1 unset
	warnings     []*filters.SourceError
	// Who loads the filters (loader.go): User=, PrivateUsers=, and
	// whether AmbientCapabilities= holds CAP_SYS_ADMIN.
	user, privateUsers string
	ambientSysAdmin    bool
	// execStart holds, per ExecStart= line (reset by an empty one), its
	// line number and whether its prefix has "+" (fully privileged).
	execStart []execLine
	// assignments are the modeled directives' lines, as read.
	assignments []Assignment
	// settings are every exec-section line, modeled or not (settings.go).
	settings []Assignment
}

// execLine is one ExecStart= command as far as the model cares.
type execLine struct {
	line int
	plus bool
}

const nsInitial = ^uint64(0)

// boolDirectives are the boolean directives the model reads.
var boolDirectives = []string{
	"MemoryDenyWriteExecute", "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality",
	"ProtectKernelModules", "ProtectKernelTunables", "ProtectKernelLogs", "ProtectClock",
	"ProtectHostname", "PrivateDevices", "DynamicUser",
}

// Unknown keys. systemd logs "Unknown key name 'FooBar' in section
// 'Service', ignoring." for any key its table does not have
// (src/core/load-fragment-gperf.gperf.in); unitKeys (zunit_keys.go,
// generated by mkunitkeys.go from systemd 252's library plus the keys
// systemd 253-258 added) is that table per section, so every unknown key
// of a section gets the same warning here, with the closest key of the
// section as a suggestion. Keys starting with "X-" and sections starting
// with "X-" are the user's own and ignored, as systemd ignores them;
// sections systemd does not know are left alone. Lines before any section
// (a bare list of directives, --systemd) are read as [Service].
//
// hardeningPrefixes only shape the hint: a hardening directive written
// in a section that takes no exec settings is pointed to [Service].
var hardeningPrefixes = []string{"systemcall", "restrict", "protect", "private", "lock", "memorydeny"}

// hardeningLike reports whether key starts like a hardening directive.
func hardeningLike(key string) bool {
	low := strings.ToLower(key)
	for _, p := range hardeningPrefixes {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// unknownKey returns the warning for a key that section does not have in
// systemd, or "".
func unknownKey(section, key string) string {
	if section == "" {
		section = "Service"
	}
	known, ok := unitKeys[section]
	if !ok || strings.HasPrefix(key, "X-") || known[key] {
		return ""
	}
	if unitKeys["Service"][key] && hardeningLike(key) {
		return fmt.Sprintf("%s= is no [%s] directive, ignoring (systemd does too); put it in [Service]", key, section)
	}
	msg := fmt.Sprintf("unknown directive %q in [%s], ignoring (systemd does too)", key, section)
	lower := map[string]string{}
	for k := range known {
		lower[strings.ToLower(k)] = k
	}
	if s := suggest.Closest(key, lower, 1); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", lower[s[0]])
	}
	return msg
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "1", "yes", "y", "true", "t", "on":
		return true, true
	case "0", "no", "n", "false", "f", "off":
		return false, true
	}
	return false, false
}

// templatePlaceholder matches what a build fills into unit templates
// (*.service.in): meson's configure_file and autoconf's @name@ in either
// case (@SERVICE_WATCHDOG@, @bindir@, @pkglibexecdir@) and jinja2's
// {{ name }} (systemd's own units/*.service.in). A syscall group never
// ends in "@", so "@system-service @clock" is no placeholder.
var templatePlaceholder = regexp.MustCompile(`@[A-Za-z_][A-Za-z0-9_]*@|\{\{[^}]*\}\}`)

// parseUnit reads the unit's lines into a unitContext: a line holding a
// template placeholder (templatePlaceholder) is a warning and otherwise
// ignored.
// newUnitContext returns the context of a unit before its first line:
// systemd's defaults, with tab's system call groups.
func newUnitContext(tab *groupTable) *unitContext {
	return &unitContext{groups: tab, known: tab.knownNames(), errnoNum: errnoKill, nsRetain: nsInitial, bools: map[string]bool{}, personality: -1}
}

// parseFile applies the lines of one file (the unit or a drop-in) to c,
// as config_parse does for each file in turn: a drop-in starts outside
// any section, and its assignments override or extend the unit's.
func (c *unitContext) parseFile(name string, data []byte) error {
	section := ""
	// systemd skips a UTF-8 byte order mark at the start of the file
	// (src/shared/conf-parser.c: config_parse, UTF8_BYTE_ORDER_MARK).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := sc.Text()
		// A trailing backslash continues the line (src/shared/conf-parser.c).
		for strings.HasSuffix(line, "\\") && sc.Scan() {
			lineNo++
			next := sc.Text()
			if t := strings.TrimSpace(next); strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
				next = "\\"
			}
			line = strings.TrimSuffix(line, "\\") + " " + next
		}
		line = strings.TrimSuffix(line, "\\")
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '[' {
			if !strings.HasSuffix(t, "]") || len(t) < 3 {
				return &filters.SourceError{File: name, Line: start, Err: fmt.Errorf("%w: invalid section header %q", ErrBadUnit, t)}
			}
			section = t[1 : len(t)-1]
			continue
		}
		if m := templatePlaceholder.FindString(t); m != "" {
			// A unit template (units/*.service.in) before meson fills it
			// in: systemd warns about such a line and ignores it.
			c.warn(name, start, "template placeholder %s (a build fills it in), ignoring the line; model the built unit to see what systemd reads", m)
			continue
		}
		key, value, ok := strings.Cut(t, "=")
		if !ok {
			return &filters.SourceError{File: name, Line: start, Err: fmt.Errorf("%w: missing '=' in %q", ErrBadUnit, t)}
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "" {
			return &filters.SourceError{File: name, Line: start, Err: fmt.Errorf("%w: empty key in %q", ErrBadUnit, t)}
		}
		if w := unknownKey(section, key); w != "" {
			c.warn(name, start, "%s", w)
		}
		switch section {
		case "", "Service", "Socket", "Mount", "Swap":
		default:
			continue
		}
		if err := c.set(name, start, key, value); err != nil {
			return err
		}
		c.settings = append(c.settings, Assignment{File: name, Line: start, Key: key, Value: value})
		if modeledKey(key) {
			c.assignments = append(c.assignments, Assignment{File: name, Line: start, Key: key, Value: value})
		}
	}
	if err := sc.Err(); err != nil {
		return &filters.SourceError{File: name, Line: lineNo + 1, Err: fmt.Errorf("%w: %v", ErrBadUnit, err)}
	}
	return nil
}

// modeledKey reports whether set models key (a directive whose lines
// compile lists with their file and line).
func modeledKey(key string) bool {
	switch key {
	case "ExecStart", "User", "PrivateUsers", "AmbientCapabilities", "SystemCallFilter", "SystemCallLog",
		"SystemCallErrorNumber", "SystemCallArchitectures", "RestrictNamespaces", "RestrictAddressFamilies", "Personality":
		return true
	}
	return slices.Contains(boolDirectives, key)
}

func (c *unitContext) warn(file string, line int, format string, args ...any) {
	c.warnings = append(c.warnings, &filters.SourceError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// warnEntry warns about an entry of a list directive (SystemCallFilter=,
// SystemCallLog=, RestrictAddressFamilies=) that systemd logs and ignores,
// with "did you mean" for the closest of like (if any). failsOpen says
// the entry would have denied something: on a SystemCallFilter= or
// RestrictAddressFamilies= "~" line it adds to a deny list or takes an
// item off an allow list, so ignoring it lets the item through
// (SourceError.FailsOpen).
func (c *unitContext) warnEntry(file string, line int, failsOpen bool, like []string, format string, args ...any) {
	w := &filters.SourceError{File: file, Line: line, Msg: fmt.Sprintf(format, args...), FailsOpen: failsOpen}
	if len(like) > 0 {
		w.Hint = fmt.Sprintf("did you mean %q?", like[0])
	}
	c.warnings = append(c.warnings, w)
}

// set applies one assignment as the directive's config parser in systemd
// 252 does (src/core/load-fragment.c: config_parse_*).
func (c *unitContext) set(file string, line int, key, value string) error {
	bad := func(format string, args ...any) error {
		return &filters.SourceError{File: file, Line: line, Err: fmt.Errorf("%w: %s: "+format, append([]any{ErrBadUnit, key}, args...)...)}
	}
	if slices.Contains(boolDirectives, key) {
		return c.setBool(key, value, bad)
	}
	switch key {
	case "ExecStart":
		c.setExecStart(line, value)
	case "User":
		c.user = value
	case "PrivateUsers":
		c.privateUsers = value
	case "AmbientCapabilities":
		c.setAmbient(value)
	case "SystemCallFilter":
		c.parseSyscallList(file, line, value, true)
	case "SystemCallLog":
		c.parseSyscallList(file, line, value, false)
	case "SystemCallErrorNumber":
		return c.setErrno(value, bad)
	case "SystemCallArchitectures":
		c.setArchitectures(file, line, value)
	case "RestrictNamespaces":
		return c.parseNamespaces(file, line, value, bad)
	case "RestrictAddressFamilies":
		c.parseAddressFamilies(file, line, value)
	case "Personality":
		return c.setPersonality(value, bad)
	}
	return nil
}

// setBool sets the boolean directive key (one of boolDirectives) as
// config_parse_bool does; an empty value resets it to its default.
// bad builds the error for a value that is not a boolean.
func (c *unitContext) setBool(key, value string, bad func(string, ...any) error) error {
	if value == "" {
		delete(c.bools, key)
		return nil
	}
	v, ok := parseBool(value)
	if !ok {
		return bad("invalid boolean %q; want yes or no", value)
	}
	c.bools[key] = v
	return nil
}

// setExecStart records the ExecStart= on line (1-based) and whether its
// prefix makes it fully privileged; an empty value clears the list.
func (c *unitContext) setExecStart(line int, value string) {
	// src/core/load-fragment.c: config_parse_exec reads the prefix
	// characters "@-:+!" before the path; "+" is
	// EXEC_COMMAND_FULLY_PRIVILEGED.
	if value == "" {
		c.execStart = nil
		return
	}
	prefix := value[:len(value)-len(strings.TrimLeft(value, "@-:+!|"))]
	c.execStart = append(c.execStart, execLine{line, strings.Contains(prefix, "+")})
}

// setErrno sets SystemCallErrorNumber= (an errno name or number, or
// "kill"); an empty value resets it to kill. bad builds the error for
// a value that is none of these.
func (c *unitContext) setErrno(value string, bad func(string, ...any) error) error {
	if value == "" {
		c.errnoNum = errnoKill
		return nil
	}
	e, ok := parseErrno(value)
	if !ok {
		return bad("invalid errno %q; want a name such as EPERM, a number 0-4095, or kill", value)
	}
	c.errnoNum = e
	return nil
}

// setArchitectures adds the names of SystemCallArchitectures= to
// c.archs; an empty value clears them. Names of architectures an x86
// host cannot run are accepted and ignored; unknown names get a
// warning at file:line.
func (c *unitContext) setArchitectures(file string, line int, value string) {
	if value == "" {
		c.archs = nil
		return
	}
	if c.archs == nil {
		c.archs = map[string]bool{}
	}
	for _, w := range strings.Fields(value) {
		switch w {
		case "native", "x86", "x86-64", "x32":
			c.archs[w] = true
		case "arm", "arm64", "mips", "mips64", "mips64-n32", "mips-le", "mips64-le", "mips64-le-n32",
			"ppc", "ppc64", "ppc64-le", "s390", "s390x", "riscv64", "loongarch64", "parisc", "parisc64":
			// Valid names of architectures this host cannot run.
		default:
			c.warn(file, line, "SystemCallArchitectures: unknown architecture %q, ignoring", w)
		}
	}
}

// setPersonality sets Personality= to the kernel's persona number
// (include/uapi/linux/personality.h); an empty value unsets it (-1).
// bad builds the error for a personality an x86_64 host does not run.
func (c *unitContext) setPersonality(value string, bad func(string, ...any) error) error {
	switch value {
	case "":
		c.personality = -1
	case "x86-64":
		c.personality = 0 // PER_LINUX
	case "x86":
		c.personality = 0x0008 // PER_LINUX32
	default:
		return bad("personality %q is not one an x86_64 host runs; want x86 or x86-64", value)
	}
	return nil
}

// parseSyscallList parses a SystemCallFilter= (filter true) or
// SystemCallLog= line as config_parse_syscall_filter / _log and
// seccomp_parse_syscall_filter (src/shared/seccomp-util.c) do.
func (c *unitContext) parseSyscallList(file string, line int, value string, filter bool) {
	key := "SystemCallLog"
	m, allow, set := &c.log, &c.logAllow, &c.logSet
	if filter {
		key = "SystemCallFilter"
		m, allow, set = &c.filter, &c.filterAllow, &c.filterSet
		c.filterFile, c.filterLine = file, line
	}
	if value == "" {
		*m, *allow, *set = nil, false, false
		return
	}
	invert := false
	if value[0] == '~' {
		invert = true
		value = value[1:]
	}
	if *m == nil {
		*m = map[string]int{}
		*set = true
		*allow = !invert
		if filter && !invert {
			// Accept default syscalls if we are on an allow list.
			c.addSyscall(file, line, key, *m, "@default", -1, false, true, 0)
		}
	}
	for _, w := range strings.Fields(value) {
		name, num := w, -1
		if filter {
			if n, e, ok := strings.Cut(w, ":"); ok {
				v, ok := parseErrno(e)
				if !ok || n == "" {
					c.warnEntry(file, line, invert && filter, nil, "%s: failed to parse syscall:errno %q, ignoring", key, w)
					continue
				}
				name, num = n, v
			}
			if !invert && num != -1 {
				c.warn(file, line, "%s: allow-listed system calls cannot take an error number, ignoring %q", key, w)
				continue
			}
		}
		c.addSyscall(file, line, key, *m, name, num, invert, *allow, 0)
	}
}

// addSyscall adds or removes one name or @group from a filter map the way
// seccomp_parse_syscall_filter does: an entry is put when the line's
// polarity matches the list's (allow line on an allow list, ~ line on a
// deny list) or for ~name:errno on an allow list, and removed otherwise.
func (c *unitContext) addSyscall(file string, line int, key string, m map[string]int, name string, num int, invert, allow bool, depth int) {
	if strings.HasPrefix(name, "@") {
		g, ok := c.groups.Groups[name]
		if !ok || depth > 8 {
			later := ""
			if w := FirstVersionWith(c.groups.Version, name); w != 0 {
				later = fmt.Sprintf("; systemd %d adds it", w)
			}
			c.warnEntry(file, line, invert && key == "SystemCallFilter", suggest.Closest(name, c.groups.Groups, 1), "%s: unknown system call group %q, ignoring (unknown to systemd %d%s)", key, name, c.groups.Version, later)
			return
		}
		for _, it := range g.Items {
			c.addSyscall(file, line, key, m, it, num, invert, allow, depth+1)
		}
		return
	}
	if !c.known[name] {
		if depth == 0 {
			c.warnEntry(file, line, invert && key == "SystemCallFilter", suggest.Closest(name, c.known, 1), "%s: unknown system call %q, ignoring", key, name)
		}
		return
	}
	if !invert == allow || (invert && allow && num != -1) {
		m[name] = num
		if key == "SystemCallFilter" && name == "write" && num != -1 {
			c.writeErrnoAt = Assignment{File: file, Line: line, Key: key}
		}
	} else {
		delete(m, name)
	}
}

// knownNames is the set of names libseccomp resolves on some
// architecture (seccomp_syscall_resolve_name): we take a name as known if
// the table's @known group or one of our x86 tables has it.
func (t *groupTable) knownNames() map[string]bool {
	k := map[string]bool{}
	for _, n := range t.Groups["@known"].Items {
		k[n] = true
	}
	for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
		for n := range a.Names {
			k[n] = true
		}
	}
	return k
}

func (c *unitContext) parseNamespaces(file string, line int, value string, bad func(string, ...any) error) error {
	if value == "" {
		c.nsRetain = nsInitial
		return nil
	}
	if v, ok := parseBool(value); ok {
		if v {
			c.nsRetain = 0
		} else {
			c.nsRetain = namespacesAll
		}
		return nil
	}
	invert := false
	if value[0] == '~' {
		invert = true
		value = value[1:]
	}
	var flags uint64
	for _, w := range strings.Fields(value) {
		found := false
		for _, ns := range namespaces {
			if ns.name == w {
				flags |= ns.flag
				found = true
			}
		}
		if !found {
			// config_parse_restrict_namespaces: "Failed to parse
			// namespace type string, ignoring" drops the whole line.
			c.warn(file, line, "RestrictNamespaces: unknown namespace type %q, ignoring the line (systemd does too); want cgroup, ipc, net, mnt, pid, user, uts or time", w)
			return nil
		}
	}
	if c.nsRetain == nsInitial {
		if invert {
			c.nsRetain = ^flags & namespacesAll
		} else {
			c.nsRetain = flags
		}
	} else if invert {
		c.nsRetain &^= flags
	} else {
		c.nsRetain |= flags
	}
	return nil
}

func (c *unitContext) parseAddressFamilies(file string, line int, value string) {
	if value == "" {
		c.afs, c.afAllow, c.afSet = nil, false, false
		return
	}
	if value == "none" {
		c.afs, c.afAllow, c.afSet = map[int]bool{}, true, true
		return
	}
	invert := false
	if value[0] == '~' {
		invert = true
		value = value[1:]
	}
	if c.afs == nil {
		c.afs, c.afAllow, c.afSet = map[int]bool{}, !invert, true
	}
	for _, w := range strings.Fields(value) {
		af, ok := addressFamilies[w]
		if !ok {
			c.warnEntry(file, line, invert, closestFamily(w), "RestrictAddressFamilies: unknown address family %q, ignoring", w)
			continue
		}
		if !invert == c.afAllow {
			c.afs[af] = true
		} else {
			delete(c.afs, af)
		}
	}
}

// familiesLower maps each address family name, lower-cased, to its name
// (suggest.Closest compares lower case).
var familiesLower = func() map[string]string {
	m := map[string]string{}
	for n := range addressFamilies {
		m[strings.ToLower(n)] = n
	}
	return m
}()

// closestFamily returns the address family name closest to w, if one is
// close enough for "did you mean".
func closestFamily(w string) []string {
	var out []string
	for _, l := range suggest.Closest(w, familiesLower, 1) {
		out = append(out, familiesLower[l])
	}
	return out
}

// parseErrno parses an errno name, a number 0-4095 or "kill"
// (src/shared/seccomp-util.c: seccomp_parse_errno_or_action).
func parseErrno(s string) (int, bool) {
	if s == "kill" {
		return errnoKill, true
	}
	if n, ok := errnoNames[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 4095 {
		return 0, false
	}
	return n, true
}

// Action return values systemd's filters use.
func errnoRet(e int) uint32 { return uint32(filters.ActionErrno) | uint32(e)&filters.RetData }

var (
	retAllow       = uint32(filters.ActionAllow)
	retEPERM       = errnoRet(1)
	retENOSYS      = errnoRet(38)
	retEAFNOSUPP   = errnoRet(97)
	retKillProcess = uint32(filters.ActionKillProcess)
)

// localArches is seccomp_local_archs on x86_64: x86, x32, x86_64 (the
// native architecture last).
var localArches = []*scmp.Arch{scmp.X86, scmp.X32, scmp.X86_64}

// unitFilter is one filter of the model before compilation.
type unitFilter struct {
	arch  string
	f     *scmp.Filter
	notes []string // Program.Notes
}

// forArch is seccomp_init_for_arch: one architecture, bad-arch ALLOW.
func forArch(a *scmp.Arch, def uint32) *scmp.Filter {
	return &scmp.Filter{DefAction: def, BadArch: retAllow, Arches: []*scmp.Arch{a}}
}

func hasAll(a *scmp.Arch, names ...string) bool {
	for _, n := range names {
		if _, ok := a.Nr(n); !ok {
			return false
		}
	}
	return true
}

func masked(arg int, v uint64) scmp.Cond {
	return scmp.Cond{Arg: arg, Op: scmp.MaskedEQ, Mask: v, Datum: v}
}

// stackBuilder collects the modeled filters of one unit in order.
type stackBuilder struct {
	st *Stack
	// local are the architectures that still get filters; a
	// SystemCallArchitectures= that blocks some removes them.
	local   []*scmp.Arch
	filters []unitFilter
}

// add records the filters fs of directive, if any.
func (sb *stackBuilder) add(directive string, fs []unitFilter) {
	if len(fs) == 0 {
		return
	}
	sb.st.Directives = append(sb.st.Directives, Directive{Name: directive, Count: len(fs)})
	for _, f := range fs {
		sb.filters = append(sb.filters, f)
		sb.st.Arches = append(sb.st.Arches, f.arch)
	}
}

// perArch builds one filter per local architecture; build returns nil to
// skip one.
func (sb *stackBuilder) perArch(build func(a *scmp.Arch) *scmp.Filter) []unitFilter {
	var out []unitFilter
	for _, a := range sb.local {
		if f := build(a); f != nil {
			out = append(out, unitFilter{arch: a.Name, f: f})
		}
	}
	return out
}

// setFilter is seccomp_load_syscall_filter_set: members the arch lacks are
// skipped, the filter is loaded even if none is left. Its default is
// ALLOW, which override_default_action keeps; from 255 on it is laid out
// as a binary tree (groupTable.SetFilterTree).
func setFilter(t *groupTable, group string) func(a *scmp.Arch) *scmp.Filter {
	return func(a *scmp.Arch) *scmp.Filter {
		f := forArch(a, overrideDefault(t, retAllow))
		f.Tree = t.SetFilterTree
		for _, n := range t.expand(group) {
			f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: retEPERM})
		}
		return f
	}
}

// simpleFilter refuses names with EPERM, or gives no filter on an
// architecture that lacks one of them (seccomp_rule_add_exact fails:
// "skipping").
func simpleFilter(names ...string) func(a *scmp.Arch) *scmp.Filter {
	return func(a *scmp.Arch) *scmp.Filter {
		if !hasAll(a, names...) {
			return nil
		}
		f := forArch(a, retAllow)
		for _, n := range names {
			f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: retEPERM})
		}
		return f
	}
}

// stack builds the modeled filters in exec_child's order.
func (c *unitContext) stack(name string, opt Options, compile func(*scmp.Filter) ([]bpf.RawInstruction, error)) (*Stack, error) {
	st := &Stack{Unit: name, Warnings: filters.WarningText(c.warnings), warnings: c.warnings}
	sb := &stackBuilder{st: st, local: append([]*scmp.Arch(nil), localArches...)}

	// exec_child: needs_sandboxing is false for a command with the "+"
	// prefix (EXEC_COMMAND_FULLY_PRIVILEGED), and every apply_* below
	// runs only when it is true. The model follows the first ExecStart=,
	// the main process of every service type but oneshot.
	if len(c.execStart) > 0 {
		for _, e := range c.execStart[1:] {
			if e.plus != c.execStart[0].plus {
				c.warn(name, e.line, "ExecStart= commands differ in the \"+\" prefix, so systemd gives them different filters; the model follows the first (line %d)", c.execStart[0].line)
				break
			}
		}
		if c.execStart[0].plus {
			c.warn(name, c.execStart[0].line, "ExecStart=+ runs the command fully privileged: systemd installs no seccomp filters for it")
			st.Warnings, st.warnings = filters.WarningText(c.warnings), c.warnings
			st.Privileged, st.LoaderReason = Loader(c.loaderInput(false))
			return st, nil
		}
	}
	c.hardening(sb, opt)
	c.restrictArchs(sb)
	if err := c.lateFilters(sb, opt.ContinueRefused); err != nil {
		return nil, err
	}
	st.Warnings, st.warnings = filters.WarningText(c.warnings), c.warnings
	base := filters.BaseName(name)
	for i, f := range sb.filters {
		insns, err := compile(f.f)
		if err != nil {
			return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: compile filter %d: %w", ErrBadUnit, i, err)}
		}
		st.Programs = append(st.Programs, &filters.Program{
			Name:   fmt.Sprintf("%s/%s/%s", base, directiveOf(st, i), f.arch),
			Source: name,
			Insns:  insns,
			Notes:  f.notes,
		})
	}
	st.Privileged, st.LoaderReason = Loader(c.loaderInput(len(st.Programs) > 0))
	return st, nil
}

// hardening adds the filters of the sandboxing directives that exec_child
// applies before SystemCallArchitectures=.
func (c *unitContext) hardening(sb *stackBuilder, opt Options) {
	// apply_protect_hostname -> seccomp_protect_hostname
	if c.bools["ProtectHostname"] {
		sb.add("ProtectHostname", sb.perArch(simpleFilter("sethostname", "setdomainname")))
	}
	// apply_address_families -> seccomp_restrict_address_families: x86
	// multiplexes socket() through socketcall(), so it is skipped.
	if c.afSet && (c.afAllow || len(c.afs) > 0) {
		sb.add("RestrictAddressFamilies", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
			if a == scmp.X86 {
				return nil
			}
			return addressFamilyFilter(a, c.afs, c.afAllow)
		}))
	}
	// apply_memory_deny_write_execute -> seccomp_memory_deny_write_execute
	if c.bools["MemoryDenyWriteExecute"] && !opt.MDWEPrctl {
		sb.add("MemoryDenyWriteExecute", sb.perArch(mdweFilter))
	}
	// apply_restrict_realtime -> seccomp_restrict_realtime
	if c.bools["RestrictRealtime"] {
		sb.add("RestrictRealtime", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
			f := forArch(a, retAllow)
			// SCHED_OTHER 0, SCHED_BATCH 3 and SCHED_IDLE 5 stay allowed;
			// FIFO 1, RR 2, ISO 4 and everything above 5 are refused.
			for _, p := range []uint64{1, 2, 4} {
				f.Rules = append(f.Rules, scmp.Rule{Syscall: "sched_setscheduler", Action: retEPERM, Conds: []scmp.Cond{{Arg: 1, Op: scmp.EQ, Datum: p}}})
			}
			f.Rules = append(f.Rules, scmp.Rule{Syscall: "sched_setscheduler", Action: retEPERM, Conds: []scmp.Cond{{Arg: 1, Op: scmp.GT, Datum: 5}}})
			return f
		}))
	}
	// apply_restrict_suid_sgid -> seccomp_restrict_suid_sgid; DynamicUser=
	// implies RestrictSUIDSGID= (src/core/unit.c: unit_patch_contexts).
	if c.bools["RestrictSUIDSGID"] || c.bools["DynamicUser"] {
		sb.add("RestrictSUIDSGID", sb.perArch(suidFilter))
	}
	// apply_restrict_namespaces -> seccomp_restrict_namespaces
	// (exec_context_restrict_namespaces_set): the full value goes to the
	// filter, CLONE_NEWTIME bit included.
	if c.nsRetain&namespacesAll != namespacesAll {
		sb.add("RestrictNamespaces", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
			return namespaceFilter(a, c.nsRetain)
		}))
	}
	// apply_protect_sysctl -> seccomp_protect_sysctl: x32 has no _sysctl.
	if c.bools["ProtectKernelTunables"] {
		sb.add("ProtectKernelTunables", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
			if a == scmp.X32 {
				return nil
			}
			return simpleFilter("_sysctl")(a)
		}))
	}
	// apply_protect_kernel_modules: the @module set
	if c.bools["ProtectKernelModules"] {
		sb.add("ProtectKernelModules", sb.perArch(setFilter(c.groups, "@module")))
	}
	// apply_protect_kernel_logs -> seccomp_protect_syslog
	if c.bools["ProtectKernelLogs"] {
		sb.add("ProtectKernelLogs", sb.perArch(simpleFilter("syslog")))
	}
	// apply_protect_clock: the @clock set
	if c.bools["ProtectClock"] {
		sb.add("ProtectClock", sb.perArch(setFilter(c.groups, "@clock")))
	}
	// apply_private_devices: the @raw-io set
	if c.bools["PrivateDevices"] {
		sb.add("PrivateDevices", sb.perArch(setFilter(c.groups, "@raw-io")))
	}
}

// restrictArchs adds SystemCallArchitectures='s filter and drops the
// blocked architectures from the ones later directives filter.
func (c *unitContext) restrictArchs(sb *stackBuilder) {
	// apply_syscall_archs -> seccomp_restrict_archs: one filter for all
	// architectures, native x86_64 always kept, the others kept only if
	// listed; bad-arch action SCMP_ACT_KILL (libseccomp's default). Blocked
	// architectures get no filters from the directives after it
	// (SECCOMP_LOCAL_ARCH_BLOCKED).
	if len(c.archs) > 0 {
		f := &scmp.Filter{DefAction: retAllow, BadArch: uint32(filters.ActionKillThread), Arches: []*scmp.Arch{scmp.X86_64}}
		var keep []*scmp.Arch
		blocked := false
		for _, a := range sb.local {
			if a == scmp.X86_64 {
				keep = append(keep, a)
				continue
			}
			tok := map[*scmp.Arch]string{scmp.X86: "x86", scmp.X32: "x32"}[a]
			if c.archs[tok] {
				f.Arches = append(f.Arches, a)
				keep = append(keep, a)
			} else {
				blocked = true
			}
		}
		if blocked {
			sb.add("SystemCallArchitectures", []unitFilter{{arch: "all", f: f}})
			sb.local = keep
		}
	}
}

// lateFilters adds the filters exec_child applies after
// SystemCallArchitectures=: LockPersonality=, SystemCallLog= and, last,
// SystemCallFilter=.
func (c *unitContext) lateFilters(sb *stackBuilder, continueRefused bool) error {
	// apply_lock_personality -> seccomp_lock_personality
	if c.bools["LockPersonality"] {
		pers := uint64(0) // opinionated_personality: PER_LINUX on x86_64
		if c.personality >= 0 {
			pers = uint64(c.personality)
		}
		sb.add("LockPersonality", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
			f := forArch(a, retAllow)
			f.Rules = []scmp.Rule{{Syscall: "personality", Action: retEPERM, Conds: []scmp.Cond{{Arg: 0, Op: scmp.NE, Datum: pers}}}}
			return f
		}))
	}
	// apply_syscall_log
	if c.logSet {
		def, act := uint32(filters.ActionLog), retAllow
		if c.logAllow {
			def, act = retAllow, uint32(filters.ActionLog)
		}
		if !(len(c.log) == 0 && def == retAllow) {
			sb.add("SystemCallLog", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
				return rawFilter(c.groups, a, def, act, c.log, true)
			}))
		}
	}
	// apply_syscall_filter: last, as close to execve() as possible.
	if c.filterSet {
		neg := errnoRet(c.errnoNum)
		if c.errnoNum == errnoKill {
			neg = retKillProcess
		}
		def, act := retAllow, neg
		if c.filterAllow {
			def, act = neg, retAllow
		}
		m, err := c.handoffWrite(continueRefused)
		if err != nil {
			return err
		}
		if !(len(m) == 0 && def == retAllow) {
			n := len(sb.filters)
			sb.add("SystemCallFilter", sb.perArch(func(a *scmp.Arch) *scmp.Filter {
				return rawFilter(c.groups, a, def, act, m, false)
			}))
			if overrideDefault(c.groups, def) != def {
				note := fmt.Sprintf("%s:%d: %s", c.filterFile, c.filterLine, enosysNote(c.groups, def))
				for i := n; i < len(sb.filters); i++ {
					sb.filters[i].notes = append(sb.filters[i].notes, note)
				}
			}
		}
	}
	return nil

}

// ErrHandoffWrite is returned (wrapped in a *SourceError naming the
// SystemCallFilter= line that gave write its errno) for a unit systemd
// 256.2 and later refuse to start: its allow list gives write an errno
// ("~write:EROFS"), and apply_syscall_filter's hashmap_put of write for
// the handoff timestamp fails with EEXIST, systemd's own hashmap refusing
// a second value for the key ("Failed to apply system call filters: File
// exists"; src/core/exec-invoke.c, src/basic/hashmap.c: hashmap_put).
var ErrHandoffWrite = errors.New("systemd fails the unit with EEXIST")

// handoffWrite returns the SystemCallFilter= entries systemd loads: with
// groupTable.HandoffWrite, write put into an allow list (allowed) or taken
// out of a deny list; else c.filter as parsed. An allow list giving write
// an errno is ErrHandoffWrite, or with cont (Options.ContinueRefused) a
// Refused warning and c.filter as parsed.
func (c *unitContext) handoffWrite(cont bool) (map[string]int, error) {
	if !c.groups.HandoffWrite {
		return c.filter, nil
	}
	m := make(map[string]int, len(c.filter)+1)
	for n, e := range c.filter {
		m[n] = e
	}
	if !c.filterAllow {
		if _, ok := m["write"]; ok {
			c.warn(c.filterFile, c.filterLine, "SystemCallFilter=: systemd %d takes write out of a deny list for its handoff timestamp (src/core/exec-invoke.c: apply_syscall_filter), so write is not refused", c.groups.Version)
			delete(m, "write")
		}
		return m, nil
	}
	if e, ok := m["write"]; ok && e != -1 {
		var vs []string
		for _, v := range Versions() {
			if groupTables[v].HandoffWrite {
				vs = append(vs, strconv.Itoa(v))
			}
		}
		at := c.writeErrnoAt
		if at.File == "" {
			at = Assignment{File: c.filterFile, Line: c.filterLine}
		}
		refused := &filters.SourceError{File: at.File, Line: at.Line, Err: fmt.Errorf("%w: %w: SystemCallFilter= gives write the errno %s inside an allow list; systemd 256.2 and later (here: %s) add write to every allow list for the handoff timestamp (src/core/exec-invoke.c: apply_syscall_filter), "+
			"and hashmap_put refuses a second value for it, so systemd logs \"Failed to apply system call filters: File exists\" and the unit does not start; 255 and earlier install it",
			ErrBadUnit, ErrHandoffWrite, errnoText(e), strings.Join(vs, ", "))}
		if !cont {
			return nil, refused
		}
		refused.Refused = true
		c.warnings = append(c.warnings, refused)
		return c.filter, nil
	}
	m["write"] = -1
	return m, nil
}

// errnoText names errno number e (the alphabetically first of its names
// in errnoNames, "kill" for errnoKill), or gives the number.
func errnoText(e int) string {
	if e == errnoKill {
		return "kill"
	}
	best := ""
	for n, v := range errnoNames {
		if v == e && (best == "" || n < best) {
			best = n
		}
	}
	if best == "" {
		return strconv.Itoa(e)
	}
	return best
}

// directiveOf returns the directive that installed filter i.
func directiveOf(st *Stack, i int) string {
	for _, d := range st.Directives {
		if i < d.Count {
			return d.Name
		}
		i -= d.Count
	}
	return ""
}

// expand returns the syscall names of a group, nested groups expanded.
func (t *groupTable) expand(group string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(g string, depth int)
	walk = func(g string, depth int) {
		for _, it := range t.Groups[g].Items {
			if strings.HasPrefix(it, "@") {
				if depth < 8 {
					walk(it, depth+1)
				}
				continue
			}
			if !seen[it] {
				seen[it] = true
				out = append(out, it)
			}
		}
	}
	walk(group, 0)
	return out
}

// Group returns the syscall names in a systemd group such as
// "@system-service", nested groups expanded, in systemd's order, and false
// if there is no such group. The data is DefaultVersion's (GroupIn takes
// a version).
func Group(name string) ([]string, bool) { return GroupIn(DefaultVersion, name) }

// GroupIn is Group for systemd version v; false also for an unknown v.
func GroupIn(v int, name string) ([]string, bool) {
	t, err := tableFor(v)
	if err != nil {
		return nil, false
	}
	if _, ok := t.Groups[name]; !ok {
		return nil, false
	}
	return t.expand(name), true
}

// FirstVersionWith returns the oldest systemd version after v whose table
// has group name, or 0 if none does.
func FirstVersionWith(v int, name string) int {
	for _, w := range Versions() {
		if _, ok := groupTables[w].Groups[name]; ok && w > v {
			return w
		}
	}
	return 0
}

// GroupNames lists DefaultVersion's groups in systemd's order.
func GroupNames() []string { return append([]string(nil), groupTables[DefaultVersion].Order...) }

// overrideDefault is override_default_action (systemd 255 and later,
// src/shared/seccomp-util.c, called by seccomp_load_syscall_filter_set and
// seccomp_load_syscall_filter_set_raw): a filter whose default action is
// neither ALLOW nor LOG, i.e. a SystemCallFilter= allow-list, is
// initialized with ERRNO(ENOSYS) instead. Tables without AllowListENOSYS
// (252, 254) keep def.
func overrideDefault(t *groupTable, def uint32) uint32 {
	if !t.AllowListENOSYS || def == retAllow || def == uint32(filters.ActionLog) {
		return def
	}
	return retENOSYS
}

// enosysNote says, for the notes of an overridden filter, what the
// override does to a filter whose requested default action is def.
func enosysNote(t *groupTable, def uint32) string {
	a, data := filters.SplitRet(def)
	what := strings.ToUpper(a.String())
	if a == filters.ActionErrno {
		what = fmt.Sprintf("ERRNO(%d)", data)
	}
	return fmt.Sprintf("systemd %d answers calls it does not know with ENOSYS: SystemCallFilter= is an allow-list, so a call outside its @known group (newer than systemd %d's system call list, or a name x86_64 lacks) gets ERRNO(38), and only the known calls it does not allow get %s (src/shared/seccomp-util.c: override_default_action)",
		t.Version, t.Version, what)
}

// rawFilter is seccomp_load_syscall_filter_set_raw for one architecture:
// one unconditional rule per entry; entries with an errno get
// SCMP_ACT_ERRNO(errno), "kill" SCMP_ACT_KILL_PROCESS, log filters
// SCMP_ACT_LOG, the rest action. When t overrides def (overrideDefault),
// the filter's default is ERRNO(ENOSYS) and, after the entries, every
// @known name that resolves on the native architecture (x86_64:
// seccomp_syscall_resolve_name, negative pseudo-numbers skipped; a nested
// group such as @known's "@obsolete" resolves to nothing) and is
// not an entry gets a rule with def, in @known's order. So ENOSYS is what
// a call outside @known gets, on every ABI; on x86 and x32 also a call
// whose name x86_64 lacks (mmap2, socketcall, ...). Rules for names the
// filter's ABI lacks are dropped by the compilers, as
// seccomp_rule_add_exact's EDOM is ignored by systemd.
func rawFilter(t *groupTable, a *scmp.Arch, def, action uint32, m map[string]int, log bool) *scmp.Filter {
	over := overrideDefault(t, def)
	f := forArch(a, over)
	f.Tree = t.SetFilterTree
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		act := action
		switch e := m[n]; {
		case e == errnoKill:
			act = retKillProcess
		case log && action == uint32(filters.ActionLog):
			act = uint32(filters.ActionLog)
		case e >= 0:
			act = errnoRet(e)
		}
		f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: act})
	}
	if over != def {
		// Only @known's own names: systemd walks its nulstr with
		// seccomp_syscall_resolve_name, which fails on the "@obsolete"
		// entry, so calls only @obsolete names (vserver, tuxcall, ...)
		// keep ENOSYS (seen in systemd 257's installed filters).
		for _, n := range t.Groups["@known"].Items {
			if strings.HasPrefix(n, "@") {
				continue
			}
			if _, ok := scmp.X86_64.Table[n]; !ok {
				continue
			}
			if _, ok := m[n]; ok {
				continue
			}
			f.Rules = append(f.Rules, scmp.Rule{Syscall: n, Action: def})
		}
	}
	return f
}

// addressFamilyFilter is seccomp_restrict_address_families for one
// architecture: socket() with a refused family fails with EAFNOSUPPORT.
func addressFamilyFilter(a *scmp.Arch, afs map[int]bool, allow bool) *scmp.Filter {
	f := forArch(a, retAllow)
	rule := func(c ...scmp.Cond) {
		f.Rules = append(f.Rules, scmp.Rule{Syscall: "socket", Action: retEAFNOSUPP, Conds: c})
	}
	if !allow {
		var l []int
		for af := range afs {
			l = append(l, af)
		}
		sort.Ints(l)
		for _, af := range l {
			rule(scmp.Cond{Arg: 0, Op: scmp.EQ, Datum: uint64(af)})
		}
		return f
	}
	first, last := 0, 0
	for af := range afs {
		if af <= 0 || af >= afMax {
			continue
		}
		if first == 0 || af < first {
			first = af
		}
		if last == 0 || af > last {
			last = af
		}
	}
	if first == 0 {
		rule()
		return f
	}
	rule(scmp.Cond{Arg: 0, Op: scmp.LT, Datum: uint64(first)})
	rule(scmp.Cond{Arg: 0, Op: scmp.GT, Datum: uint64(last)})
	for af := 1; af < afMax; af++ {
		if !afs[af] {
			rule(scmp.Cond{Arg: 0, Op: scmp.EQ, Datum: uint64(af)})
		}
	}
	return f
}

// Memory protection flags (include/uapi/asm-generic/mman-common.h,
// include/uapi/linux/shm.h).
const (
	protWrite = 0x2
	protExec  = 0x4
	shmExec   = 0o100000
)

// mdweFilter is seccomp_memory_deny_write_execute for one architecture.
// x86 filters mmap2 and refuses old mmap outright; shmat is multiplexed
// through ipc() there and left alone.
func mdweFilter(a *scmp.Arch) *scmp.Filter {
	f := forArch(a, retAllow)
	mapCall, block, shmat := "mmap", "", "shmat"
	if a == scmp.X86 {
		mapCall, block, shmat = "mmap2", "mmap", ""
	}
	f.Rules = append(f.Rules, scmp.Rule{Syscall: mapCall, Action: retEPERM, Conds: []scmp.Cond{masked(2, protExec|protWrite)}})
	if block != "" {
		f.Rules = append(f.Rules, scmp.Rule{Syscall: block, Action: retEPERM})
	}
	f.Rules = append(f.Rules,
		scmp.Rule{Syscall: "mprotect", Action: retEPERM, Conds: []scmp.Cond{masked(2, protExec)}},
		scmp.Rule{Syscall: "pkey_mprotect", Action: retEPERM, Conds: []scmp.Cond{masked(2, protExec)}})
	if shmat != "" {
		f.Rules = append(f.Rules, scmp.Rule{Syscall: shmat, Action: retEPERM, Conds: []scmp.Cond{masked(2, shmExec)}})
	}
	return f
}

// File mode bits and open flags (include/uapi/linux/stat.h,
// include/uapi/asm-generic/fcntl.h).
const (
	modeSISUID = 0o4000
	modeSISGID = 0o2000
	flagOCreat = 0o100
)

// suidFilter is seccomp_restrict_suid_sgid for one architecture
// (src/shared/seccomp-util.c: seccomp_restrict_sxid, once for S_ISUID and
// once for S_ISGID): creating or chmod-ing a file with the set-user-ID or
// set-group-ID bit fails with EPERM, openat2 (whose flags are out of
// reach) with ENOSYS. fchmodat2(dirfd, path, mode, flags) (Linux 6.6,
// x86_64 nr 452) is checked like fchmodat, on its mode in args[2]: systemd
// 252.38 adds that rule when libseccomp knows the call (__SNR_fchmodat2),
// as Debian 12's libseccomp 2.5.4-1+deb12u1 does; with an older
// libseccomp systemd refuses nr 452 with ENOSYS instead, which this model
// does not follow.
func suidFilter(a *scmp.Arch) *scmp.Filter {
	f := forArch(a, retAllow)
	for _, m := range []uint64{modeSISUID, modeSISGID} {
		for _, r := range []struct {
			name string
			arg  int
		}{{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"mkdir", 1}, {"mkdirat", 2}, {"mknod", 1}, {"mknodat", 2}} {
			f.Rules = append(f.Rules, scmp.Rule{Syscall: r.name, Action: retEPERM, Conds: []scmp.Cond{masked(r.arg, m)}})
		}
		f.Rules = append(f.Rules,
			scmp.Rule{Syscall: "open", Action: retEPERM, Conds: []scmp.Cond{masked(1, flagOCreat), masked(2, m)}},
			scmp.Rule{Syscall: "openat", Action: retEPERM, Conds: []scmp.Cond{masked(2, flagOCreat), masked(3, m)}},
			scmp.Rule{Syscall: "openat2", Action: retENOSYS},
			scmp.Rule{Syscall: "creat", Action: retEPERM, Conds: []scmp.Cond{masked(1, m)}})
	}
	return f
}

// namespaceFilter is seccomp_restrict_namespaces
// (src/shared/seccomp-util.c) for one architecture: clone3 fails with
// ENOSYS (its flags are out of reach, so callers fall back to clone);
// unshare and clone with a refused CLONE_NEW* flag, and setns with one or
// with flags 0 (or setns at all when nothing of NAMESPACE_FLAGS_ALL is
// retained), fail with EPERM. The refused flags are every entry of
// namespace_info that retain lacks, CLONE_NEWTIME included (systemd
// 252.38; the VM check found its three extra instructions per filter).
func namespaceFilter(a *scmp.Arch, retain uint64) *scmp.Filter {
	f := forArch(a, retAllow)
	f.Rules = append(f.Rules, scmp.Rule{Syscall: "clone3", Action: retENOSYS})
	if retain&namespacesAll == 0 {
		f.Rules = append(f.Rules, scmp.Rule{Syscall: "setns", Action: retEPERM})
	} else {
		f.Rules = append(f.Rules, scmp.Rule{Syscall: "setns", Action: retEPERM, Conds: []scmp.Cond{{Arg: 1, Op: scmp.EQ, Datum: 0}}})
	}
	for _, ns := range namespaces {
		if retain&ns.flag != 0 {
			continue
		}
		f.Rules = append(f.Rules,
			scmp.Rule{Syscall: "unshare", Action: retEPERM, Conds: []scmp.Cond{masked(0, ns.flag)}},
			scmp.Rule{Syscall: "clone", Action: retEPERM, Conds: []scmp.Cond{masked(0, ns.flag)}})
		if retain&namespacesAll != 0 {
			f.Rules = append(f.Rules, scmp.Rule{Syscall: "setns", Action: retEPERM, Conds: []scmp.Cond{masked(1, ns.flag)}})
		}
	}
	return f
}

// afMax is AF_MAX of the kernel headers systemd 252 is built with (Linux
// 6.1: AF_MCTP 45 is the last family).
const afMax = 46

// addressFamilies maps AF_* names to numbers (include/linux/socket.h).
var addressFamilies = map[string]int{
	"AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4, "AF_APPLETALK": 5,
	"AF_NETROM": 6, "AF_BRIDGE": 7, "AF_ATMPVC": 8, "AF_X25": 9, "AF_INET6": 10, "AF_ROSE": 11,
	"AF_NETBEUI": 13, "AF_SECURITY": 14, "AF_KEY": 15, "AF_NETLINK": 16, "AF_ROUTE": 16,
	"AF_PACKET": 17, "AF_ASH": 18, "AF_ECONET": 19, "AF_ATMSVC": 20, "AF_RDS": 21, "AF_SNA": 22,
	"AF_IRDA": 23, "AF_PPPOX": 24, "AF_WANPIPE": 25, "AF_LLC": 26, "AF_IB": 27, "AF_MPLS": 28,
	"AF_CAN": 29, "AF_TIPC": 30, "AF_BLUETOOTH": 31, "AF_IUCV": 32, "AF_RXRPC": 33, "AF_ISDN": 34,
	"AF_PHONET": 35, "AF_IEEE802154": 36, "AF_CAIF": 37, "AF_ALG": 38, "AF_NFC": 39, "AF_VSOCK": 40,
	"AF_KCM": 41, "AF_QIPCRTR": 42, "AF_SMC": 43, "AF_XDP": 44, "AF_MCTP": 45,
}

// errnoNames maps errno names to numbers (include/uapi/asm-generic/errno-base.h
// and errno.h, as on x86).
var errnoNames = map[string]int{
	"EPERM": 1, "ENOENT": 2, "ESRCH": 3, "EINTR": 4, "EIO": 5, "ENXIO": 6, "E2BIG": 7, "ENOEXEC": 8,
	"EBADF": 9, "ECHILD": 10, "EAGAIN": 11, "EWOULDBLOCK": 11, "ENOMEM": 12, "EACCES": 13, "EFAULT": 14,
	"ENOTBLK": 15, "EBUSY": 16, "EEXIST": 17, "EXDEV": 18, "ENODEV": 19, "ENOTDIR": 20, "EISDIR": 21,
	"EINVAL": 22, "ENFILE": 23, "EMFILE": 24, "ENOTTY": 25, "ETXTBSY": 26, "EFBIG": 27, "ENOSPC": 28,
	"ESPIPE": 29, "EROFS": 30, "EMLINK": 31, "EPIPE": 32, "EDOM": 33, "ERANGE": 34, "EDEADLK": 35,
	"EDEADLOCK": 35, "ENAMETOOLONG": 36, "ENOLCK": 37, "ENOSYS": 38, "ENOTEMPTY": 39, "ELOOP": 40,
	"ENOMSG": 42, "EIDRM": 43, "ECHRNG": 44, "EL2NSYNC": 45, "EL3HLT": 46, "EL3RST": 47, "ELNRNG": 48,
	"EUNATCH": 49, "ENOCSI": 50, "EL2HLT": 51, "EBADE": 52, "EBADR": 53, "EXFULL": 54, "ENOANO": 55,
	"EBADRQC": 56, "EBADSLT": 57, "EBFONT": 59, "ENOSTR": 60, "ENODATA": 61, "ETIME": 62, "ENOSR": 63,
	"ENONET": 64, "ENOPKG": 65, "EREMOTE": 66, "ENOLINK": 67, "EADV": 68, "ESRMNT": 69, "ECOMM": 70,
	"EPROTO": 71, "EMULTIHOP": 72, "EDOTDOT": 73, "EBADMSG": 74, "EOVERFLOW": 75, "ENOTUNIQ": 76,
	"EBADFD": 77, "EREMCHG": 78, "ELIBACC": 79, "ELIBBAD": 80, "ELIBSCN": 81, "ELIBMAX": 82,
	"ELIBEXEC": 83, "EILSEQ": 84, "ERESTART": 85, "ESTRPIPE": 86, "EUSERS": 87, "ENOTSOCK": 88,
	"EDESTADDRREQ": 89, "EMSGSIZE": 90, "EPROTOTYPE": 91, "ENOPROTOOPT": 92, "EPROTONOSUPPORT": 93,
	"ESOCKTNOSUPPORT": 94, "EOPNOTSUPP": 95, "ENOTSUP": 95, "EPFNOSUPPORT": 96, "EAFNOSUPPORT": 97,
	"EADDRINUSE": 98, "EADDRNOTAVAIL": 99, "ENETDOWN": 100, "ENETUNREACH": 101, "ENETRESET": 102,
	"ECONNABORTED": 103, "ECONNRESET": 104, "ENOBUFS": 105, "EISCONN": 106, "ENOTCONN": 107,
	"ESHUTDOWN": 108, "ETOOMANYREFS": 109, "ETIMEDOUT": 110, "ECONNREFUSED": 111, "EHOSTDOWN": 112,
	"EHOSTUNREACH": 113, "EALREADY": 114, "EINPROGRESS": 115, "ESTALE": 116, "EUCLEAN": 117,
	"ENOTNAM": 118, "ENAVAIL": 119, "EISNAM": 120, "EREMOTEIO": 121, "EDQUOT": 122, "ENOMEDIUM": 123,
	"EMEDIUMTYPE": 124, "ECANCELED": 125, "ENOKEY": 126, "EKEYEXPIRED": 127, "EKEYREVOKED": 128,
	"EKEYREJECTED": 129, "EOWNERDEAD": 130, "ENOTRECOVERABLE": 131, "ERFKILL": 132, "EHWPOISON": 133,
}

// CompileLibseccomp models the unit's stack like ParseUnit
// and compiles every filter with libseccomp as systemd 252 does
// (src/shared/seccomp-util.c): one filter per local architecture per
// directive (seccomp_init_for_arch: that architecture only, bad-arch
// action ALLOW), rules added with seccomp_rule_add_exact, libseccomp's
// default optimize level (2, the binary tree, for the set-based filters of
// systemd 255 and later: groupTable.SetFilterTree). opt.Compiler is
// ignored. Errors are those of
// ParseUnit, plus an error wrapping ErrNoLibseccomp in a build
// without libseccomp.
func CompileLibseccomp(name string, data []byte, opt Options) (*Stack, error) {
	opt.Compiler = scmp.CompilerLibseccomp
	return ParseUnit(name, data, opt)
}

// compileFunc returns the function that turns one modeled systemd
// filter into BPF for c.
func compileFunc(c scmp.Compiler) (func(*scmp.Filter) ([]bpf.RawInstruction, error), error) {
	switch c {
	case scmp.CompilerNative:
		return (*scmp.Filter).Compile, nil
	case scmp.CompilerLibseccomp:
		if !scmp.LibseccompAvailable() {
			return nil, fmt.Errorf("compile systemd filters: %w; %s", scmp.ErrNoLibseccomp, scmp.LibseccompHint)
		}
		return func(f *scmp.Filter) ([]bpf.RawInstruction, error) {
			o := scmp.LibseccompOptions{Exact: true}
			if f.Tree {
				o.Optimize = 2 // SCMP_FLTATR_CTL_OPTIMIZE (groupTable.SetFilterTree)
			}
			return scmp.CompileLibseccomp(f, o)
		}, nil
	}
	return nil, fmt.Errorf("compile systemd filters: %w: %v", scmp.ErrUnknownCompiler, c)
}

// FormatName is the name of this format in the filters/formats table.
const FormatName = "systemd-unit"

// Source returns the stack in the shared loaded shape: the filters as one
// stack (Stacked), one part per directive.
func (s *Stack) Source() *filters.Source {
	src := &filters.Source{
		Name:      s.Unit,
		Format:    FormatName,
		Filters:   append([]*filters.Program(nil), s.Programs...),
		Stacked:   true,
		Arches:    append([]string(nil), s.Arches...),
		Warnings:  append([]*filters.SourceError(nil), s.warnings...),
		Toolchain: s.GroupsVersion,
	}
	for _, d := range s.Directives {
		src.Parts = append(src.Parts, filters.Part{Name: d.Name, Count: d.Count})
	}
	return src
}

// LoadSource models a unit (ParseUnit) and returns it in the shared loaded
// shape.
func LoadSource(name string, data []byte, opt Options) (*filters.Source, error) {
	st, err := ParseUnit(name, data, opt)
	if err != nil {
		return nil, err
	}
	return st.Source(), nil
}
