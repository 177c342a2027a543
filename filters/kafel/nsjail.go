package kafel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
)

// Config is what an nsjail config says about seccomp (nsjail config.proto:
// seccomp_policy_file = 68, seccomp_string = 69, seccomp_log = 70,
// seccomp_unotify = 99); every other field is skipped.
type Config struct {
	// Strings are the seccomp_string values, in order, with the line
	// and column of each value's first character (0 for JSON).
	Strings []Located
	// PolicyFile is seccomp_policy_file, "" for none.
	PolicyFile string
	// PolicyFileLine is the line of seccomp_policy_file.
	PolicyFileLine int
	// Log is seccomp_log: nsjail installs the filter with
	// SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_TSYNC (sandbox.cc:
	// prepareAndCommit).
	Log bool
	// Unotify is seccomp_unotify: nsjail first installs a second filter,
	// USER_NOTIF for the file and network calls it traces, DEFAULT ALLOW
	// (unotify/syscall_defs.h: buildKafelPolicy; sandbox.cc:
	// installUnotifyFilter runs before prepareAndCommit).
	Unotify bool
}

// Located is a string value and where it starts in the config.
// SpansLines says the literal itself crossed lines of the config (as
// nsjail's own configs write seccomp_string), so line k of Value is line
// Line+k of the file.
type Located struct {
	Value      string
	Line, Col  int
	SpansLines bool
}

// ptoken is a token of the protobuf text format.
type ptoken struct {
	kind      byte // 'i' identifier or number, 's' string, else the punctuation
	text      string
	line, col int
	multiline bool // a string literal that crossed a line of the source
}

// lexText splits protobuf text format: # comments, identifiers and
// numbers, "..." and '...' strings with C escapes, punctuation. A string
// may cross lines: nsjail's own configs write seccomp_string and
// description that way (configs/*.cfg in google/nsjail), and nsjail
// loads them; the newline is part of the value.
func lexText(src string) ([]ptoken, error) {
	var out []ptoken
	line, col := 1, 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line, col = line+1, 1
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
			col++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != c {
				return nil, &posError{line, col, "unterminated string"}
			}
			body := src[i+1 : j]
			if c == '\'' {
				body = strings.ReplaceAll(body, `"`, `\"`)
			}
			nl := strings.Count(body, "\n")
			v, err := unquote(`"` + strings.ReplaceAll(body, "\n", `\n`) + `"`)
			if err != nil {
				return nil, &posError{line, col, fmt.Sprintf("bad string %s: %v", firstLine(src[i:j+1]), err)}
			}
			out = append(out, ptoken{kind: 's', text: v, line: line, col: col + 1, multiline: nl > 0})
			if nl > 0 {
				line += nl
				col = j + 1 - strings.LastIndexByte(src[:j], '\n') // the column after the closing quote
			} else {
				col += j + 1 - i
			}
			i = j + 1
		case isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '+':
			j := i
			for j < len(src) && (isAlnum(src[j]) || strings.IndexByte("_-.+", src[j]) >= 0) {
				j++
			}
			out = append(out, ptoken{kind: 'i', text: src[i:j], line: line, col: col})
			col += j - i
			i = j
		case strings.IndexByte(":{}<>[],;", c) >= 0:
			out = append(out, ptoken{kind: c, text: string(c), line: line, col: col})
			i++
			col++
		default:
			return nil, &posError{line, col, fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return out, nil
}

// firstLine is s up to its first newline, for error messages.
func firstLine(s string) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k] + "…"
	}
	return s
}

// unquote reads a protobuf text string: Go's escapes are a superset of
// the C ones the format has, octal and \x included.
func unquote(raw string) (string, error) {
	return strconv.Unquote(raw)
}

// ParseConfig reads an nsjail config in protobuf text format, or in JSON
// (protobuf's JSON mapping: seccompString or seccomp_string, ...). Errors
// are "LINE:COL: message" values.
func ParseConfig(data []byte) (*Config, error) {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return parseJSONConfig(data)
	}
	toks, err := lexText(string(data))
	if err != nil {
		return nil, err
	}
	cfg := &Config{}
	if _, err := parseFields(toks, 0, ptoken{}, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// nsjailFields are the fields of nsjail's NsJailConfig message (google/nsjail
// config.proto); protobuf's text parser refuses any other top-level name,
// and so does ParseConfig.
var nsjailFields = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`name description mode hostname cwd no_pivotroot port bindhost
		max_conns max_conns_per_ip time_limit daemon max_cpus nice_level log_fd log_file log_level
		keep_env envar keep_caps cap silent skip_setsid stderr_to_null pass_fd disable_no_new_privs
		forward_signals disable_tsc oom_score_adj rlimit_as rlimit_as_type rlimit_core
		rlimit_core_type rlimit_cpu rlimit_cpu_type rlimit_fsize rlimit_fsize_type rlimit_nofile
		rlimit_nofile_type rlimit_nproc rlimit_nproc_type rlimit_stack rlimit_stack_type
		rlimit_memlock rlimit_memlock_type rlimit_rtprio rlimit_rtprio_type rlimit_msgqueue
		rlimit_msgqueue_type disable_rl persona_addr_compat_layout persona_mmap_page_zero
		persona_read_implies_exec persona_addr_limit_3gb persona_addr_no_randomize clone_newnet
		clone_newuser clone_newns clone_newpid clone_newipc clone_newuts clone_newcgroup
		clone_newtime uidmap gidmap mount_proc mount seccomp_policy_file seccomp_string seccomp_log
		seccomp_unotify seccomp_unotify_report use_core_scheduling cgroup_mem_max
		cgroup_mem_memsw_max cgroup_mem_swap_max cgroup_mem_mount cgroup_mem_parent
		cgroup_pids_max cgroup_pids_mount cgroup_pids_parent cgroup_net_cls_classid
		cgroup_net_cls_mount cgroup_net_cls_parent cgroup_cpu_ms_per_sec cgroup_cpu_mount
		cgroup_cpu_parent cgroupv2_mount use_cgroupv2 detect_cgroupv2 iface_no_lo iface_own
		macvlan_iface macvlan_vs_ip macvlan_vs_nm macvlan_vs_gw macvlan_vs_ma macvlan_vs_mo
		traffic_rule user_net exec_bin`) {
		nsjailFields[f] = true
	}
}

// snakeName matches a lower_snake_case field name, the only spelling
// config.proto's nested messages use.
var snakeName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// parseFields reads the fields of a message from toks[i] up to the
// bracket closing open, or to the end of input at the top level. At the top level,
// names must be NsJailConfig's and the seccomp fields are recorded in
// cfg; inside nested messages names must be lower_snake_case. As in
// protobuf's text format, a scalar or list value needs a ':' after the
// field name; a message value may go without. It returns the index after
// the closing token of open, the message's opening bracket (a zero
// ptoken at the top level).
func parseFields(toks []ptoken, i int, open ptoken, cfg *Config) (int, error) {
	top := open.kind == 0
	closing := map[byte]byte{'{': '}', '<': '>'}[open.kind]
	for {
		if i >= len(toks) {
			if top {
				return i, nil
			}
			return 0, &posError{open.line, open.col, "unterminated message"}
		}
		t := toks[i]
		if !top && t.kind == closing {
			return i + 1, nil
		}
		if t.kind == ';' || t.kind == ',' {
			i++
			continue
		}
		if t.kind != 'i' {
			return 0, &posError{t.line, t.col, fmt.Sprintf("expected a field name, got %q", t.text)}
		}
		switch {
		case top && !nsjailFields[t.text]:
			return 0, &posError{t.line, t.col, fmt.Sprintf("unknown field %q: not a field of nsjail's config.proto (NsJailConfig)", t.text)}
		case !top && !snakeName.MatchString(t.text):
			return 0, &posError{t.line, t.col, fmt.Sprintf("bad field name %q: nsjail's config.proto names fields in lower_snake_case", t.text)}
		}
		i++
		colon := i < len(toks) && toks[i].kind == ':'
		if colon {
			i++
		}
		if i >= len(toks) || !top && toks[i].kind == closing {
			return 0, &posError{t.line, t.col, fmt.Sprintf("field %s has no value", t.text)}
		}
		var vals []ptoken
		switch v := toks[i]; {
		case v.kind == '{' || v.kind == '<':
			j, err := parseFields(toks, i+1, v, nil)
			if err != nil {
				return 0, err
			}
			i = j
			continue
		case !colon:
			col := v.col
			if v.kind == 's' {
				col-- // the opening quote
			}
			return 0, &posError{v.line, col, fmt.Sprintf("field %s: expected ':' before its value %s (protobuf text format)", t.text, firstLine(strconv.Quote(v.text)))}
		case v.kind == '[':
			var err error
			if vals, i, err = parseList(toks, i, t); err != nil {
				return 0, err
			}
		case v.kind == 'i' || v.kind == 's':
			var val ptoken
			val, i = scalar(toks, i)
			vals = append(vals, val)
		default:
			return 0, &posError{v.line, v.col, fmt.Sprintf("field %s: expected a value, got %q", t.text, v.text)}
		}
		if top {
			if err := cfg.set(t, vals); err != nil {
				return 0, err
			}
		}
	}
}

// parseList reads the list value of field name opening at toks[i]:
// scalars, and messages it checks as parseFields does. It returns the
// scalars and the index after the closing ']'.
func parseList(toks []ptoken, i int, name ptoken) ([]ptoken, int, error) {
	open := toks[i]
	var vals []ptoken
	i++
	for i < len(toks) && toks[i].kind != ']' {
		switch k := toks[i].kind; {
		case k == ',':
			i++
		case k == '{' || k == '<':
			j, err := parseFields(toks, i+1, toks[i], nil)
			if err != nil {
				return nil, 0, err
			}
			i = j
		case k == 'i' || k == 's':
			var val ptoken
			val, i = scalar(toks, i)
			vals = append(vals, val)
		default:
			return nil, 0, &posError{toks[i].line, toks[i].col, fmt.Sprintf("field %s: expected a value, got %q", name.text, toks[i].text)}
		}
	}
	if i >= len(toks) {
		return nil, 0, &posError{open.line, open.col, "unterminated list"}
	}
	return vals, i + 1, nil
}

// scalar reads one value at toks[i]: adjacent strings concatenate.
func scalar(toks []ptoken, i int) (ptoken, int) {
	v := toks[i]
	i++
	for v.kind == 's' && i < len(toks) && toks[i].kind == 's' {
		v.text += toks[i].text
		i++
	}
	return v, i
}

func parseBool(t ptoken) (bool, error) {
	switch t.text {
	case "true", "True", "t", "1":
		return true, nil
	case "false", "False", "f", "0":
		return false, nil
	}
	return false, &posError{t.line, t.col, fmt.Sprintf("want true or false, got %q", t.text)}
}

// set records one top-level field that matters.
func (c *Config) set(name ptoken, vals []ptoken) error {
	for _, v := range vals {
		var err error
		switch name.text {
		case "seccomp_string":
			if v.kind != 's' {
				return &posError{v.line, v.col, "seccomp_string wants a string"}
			}
			c.Strings = append(c.Strings, Located{v.text, v.line, v.col, v.multiline})
		case "seccomp_policy_file":
			if v.kind != 's' {
				return &posError{v.line, v.col, "seccomp_policy_file wants a string"}
			}
			c.PolicyFile, c.PolicyFileLine = v.text, v.line
		case "seccomp_log":
			c.Log, err = parseBool(v)
		case "seccomp_unotify":
			c.Unotify, err = parseBool(v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseJSONConfig(data []byte) (*Config, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &posError{1, 1, fmt.Sprintf("nsjail JSON config: %v", err)}
	}
	get := func(dst any, keys ...string) error {
		for _, k := range keys {
			if raw, ok := doc[k]; ok {
				if err := json.Unmarshal(raw, dst); err != nil {
					return &posError{1, 1, fmt.Sprintf("nsjail JSON config: %s: %v", k, err)}
				}
			}
		}
		return nil
	}
	cfg := &Config{}
	var strs []string
	if err := get(&strs, "seccompString", "seccomp_string"); err != nil {
		return nil, err
	}
	for _, s := range strs {
		cfg.Strings = append(cfg.Strings, Located{Value: s})
	}
	for _, e := range []error{
		get(&cfg.PolicyFile, "seccompPolicyFile", "seccomp_policy_file"),
		get(&cfg.Log, "seccompLog", "seccomp_log"),
		get(&cfg.Unotify, "seccompUnotify", "seccomp_unotify"),
	} {
		if e != nil {
			return nil, e
		}
	}
	return cfg, nil
}

// unotifySyscalls are the calls nsjail's seccomp_unotify filter notifies,
// by Kafel name (nsjail unotify/syscall_defs.h: kTracedSyscalls, each
// under #ifdef __NR_x: a name the target's table lacks is left out).
var unotifySyscalls = []string{
	"open", "newstat", "newlstat", "access", "chmod", "chown", "lchown", "readlink",
	"mkdir", "mknod", "rmdir", "unlink", "execve", "chdir", "chroot", "openat",
	"openat2", "newfstatat", "faccessat", "fchmodat", "fchownat", "readlinkat",
	"mkdirat", "mknodat", "unlinkat", "execveat", "rename", "link", "symlink",
	"renameat", "renameat2", "linkat", "symlinkat", "connect", "bind", "sendto", "socket",
}

// unotifyPolicy is the Kafel policy nsjail builds for seccomp_unotify
// (buildKafelPolicy), for the syscalls table t has.
func unotifyPolicy(t *archTable) string {
	var names []string
	for _, n := range unotifySyscalls {
		if _, ok := t.syscalls()[n]; ok {
			names = append(names, n)
		}
	}
	return "POLICY unotify {\n  USER_NOTIF {\n" + strings.Join(names, ", ") + "\n  }\n}\nUSE unotify DEFAULT ALLOW\n"
}

// nsjailLine matches the config.proto fields that make a config one
// this package reads.
var nsjailLine = regexp.MustCompile(`(?m)^\s*(seccomp_string|seccomp_policy_file)\s*:\s*["']|^\s*seccomp_unotify\s*:\s*true\b`)

// DetectNsjail reports whether data is an nsjail config with a seccomp
// policy: a protobuf text config with a seccomp_string,
// seccomp_policy_file or "seccomp_unotify: true" line, or a JSON object
// with one of those keys.
func DetectNsjail(data []byte) bool {
	if len(data) > 64<<10 {
		data = data[:64<<10]
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		for _, k := range []string{`"seccompString"`, `"seccomp_string"`, `"seccompPolicyFile"`, `"seccomp_policy_file"`} {
			if bytes.Contains(data, []byte(k)) {
				return true
			}
		}
		return false
	}
	return nsjailLine.Match(data)
}

// ErrNoPolicy is wrapped by LoadNsjail's error for a config with no
// seccomp_string, seccomp_policy_file or "seccomp_unotify: true": nsjail
// installs no seccomp filter for it, so there is no policy to read.
var ErrNoPolicy = errors.New("nsjail config with no seccomp policy")

// LoadNsjail reads an nsjail config and compiles the filters nsjail
// installs, in install order: the seccomp_unotify filter (NAME/unotify)
// when the config asks for it, then the Kafel policy of its
// seccomp_string lines (joined with a newline after each, as
// sandbox.cc: preparePolicy does) or of its seccomp_policy_file (read
// with o.ReadFile, relative to the config's directory); a config with
// none of them is an error wrapping ErrNoPolicy. Errors in a
// seccomp_string are placed at the config's line and column.
func LoadNsjail(name string, data []byte, o Options) (*filters.Source, error) {
	cfg, err := ParseConfig(data)
	if err != nil {
		if pe, ok := err.(*posError); ok {
			return nil, &filters.SourceError{File: name, Line: pe.line, Col: pe.col, Err: ErrBadPolicy, Msg: "nsjail config: " + pe.msg}
		}
		return nil, err
	}
	src := &filters.Source{Name: name, Format: NsjailFormatName}
	t, err := o.target()
	if err != nil {
		return nil, &filters.SourceError{File: name, Err: fmt.Errorf("%w: %w", ErrBadPolicy, err)}
	}
	add := func(part string, flt func() (*filters.Program, error)) error {
		p, err := flt()
		if err != nil {
			return err
		}
		if part != "" {
			p.Name += "/" + part
		}
		src.Filters = append(src.Filters, p)
		src.Parts = append(src.Parts, filters.Part{Name: p.Name, Count: 1})
		return nil
	}
	if cfg.PolicyFile != "" && len(cfg.Strings) > 0 {
		return nil, &filters.SourceError{File: name, Line: cfg.PolicyFileLine, Err: ErrBadPolicy,
			Msg: "both seccomp_policy_file and seccomp_string: nsjail refuses the config (\"Specify one only\")"}
	}
	if cfg.Unotify {
		pol := unotifyPolicy(t)
		if err := add("unotify", func() (*filters.Program, error) {
			return compileProgram(name+" (seccomp_unotify)", pol, o, nil, name, []byte(pol))
		}); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.PolicyFile != "":
		p, err := policyFile(name, data, cfg, o)
		if err != nil {
			return nil, err
		}
		src.Filters = append(src.Filters, p)
		src.Parts = append(src.Parts, filters.Part{Name: p.Name, Count: 1})
	case len(cfg.Strings) > 0:
		var b strings.Builder
		for _, s := range cfg.Strings {
			b.WriteString(s.Value)
			b.WriteByte('\n')
		}
		loc := stringLocator(name, cfg.Strings)
		if err := add("", func() (*filters.Program, error) {
			return compileProgram(name, b.String(), o, loc, name, data)
		}); err != nil {
			return nil, err
		}
	}
	if len(src.Filters) == 0 {
		return nil, &filters.SourceError{File: name, Err: ErrNoPolicy,
			Msg: "no seccomp_string, seccomp_policy_file or seccomp_unotify: nsjail installs no seccomp filter"}
	}
	src.Stacked = len(src.Filters) > 1
	if cfg.Log && len(src.Filters) > 0 && (cfg.PolicyFile != "" || len(cfg.Strings) > 0) {
		last := src.Filters[len(src.Filters)-1]
		last.Notes = append(last.Notes, name+": seccomp_log: nsjail installs this filter with SECCOMP_FILTER_FLAG_LOG, so the kernel also logs its actions other than ALLOW; verdicts are the same")
	}
	return src, nil
}

// compileProgram compiles Kafel text into a Program named after file
// (the config), identified by data's hash.
func compileProgram(errName, text string, o Options, loc locator, file string, data []byte) (*filters.Program, error) {
	flt, err := compileAt(errName, text, o, loc)
	if err != nil {
		return nil, err
	}
	insns, err := flt.Compile()
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", errName, err)
	}
	return filters.SourceProgram(file, data, insns), nil
}

// stringLocator maps a position in the joined seccomp_string text back
// to the config: line k of the text is the k-th string (a string holding
// "\n" escapes spans several lines of the text).
func stringLocator(name string, strs []Located) locator {
	type span struct {
		first int // first text line of the string
		s     Located
	}
	var spans []span
	line := 1
	for _, s := range strs {
		spans = append(spans, span{line, s})
		line += strings.Count(s.Value, "\n") + 1
	}
	return func(l, c int) (string, int, int) {
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if l >= sp.first {
				if sp.s.Line == 0 {
					return fmt.Sprintf("%s: seccompString[%d]", name, i), l - sp.first + 1, c
				}
				if l == sp.first {
					return name, sp.s.Line, sp.s.Col + c - 1
				}
				if sp.s.SpansLines {
					return name, sp.s.Line + l - sp.first, c
				}
				return name, sp.s.Line, sp.s.Col
			}
		}
		return name, l, c
	}
}

// policyFile compiles the seccomp_policy_file of cfg, read with
// o.ReadFile relative to the config name's directory.
func policyFile(name string, data []byte, cfg *Config, o Options) (*filters.Program, error) {
	if o.ReadFile == nil {
		return nil, &filters.SourceError{File: name, Line: cfg.PolicyFileLine, Err: ErrBadPolicy,
			Msg: fmt.Sprintf("seccomp_policy_file %q: this caller reads no other file; give the policy file itself", cfg.PolicyFile)}
	}
	path := cfg.PolicyFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(name), path)
	}
	pdata, err := o.ReadFile(path)
	if err != nil {
		return nil, &filters.SourceError{File: name, Line: cfg.PolicyFileLine, Err: fmt.Errorf("%w: seccomp_policy_file: %w", ErrBadPolicy, err),
			Msg: fmt.Sprintf("seccomp_policy_file %q: %v", cfg.PolicyFile, err)}
	}
	p, err := compileProgram(path, string(pdata), o, nil, name, data)
	if err != nil {
		return nil, err
	}
	if path != cfg.PolicyFile {
		p.Notes = append(p.Notes, fmt.Sprintf("%s:%d: seccomp_policy_file %q read as %s; nsjail opens it relative to its working directory", name, cfg.PolicyFileLine, cfg.PolicyFile, path))
	}
	return p, nil
}
