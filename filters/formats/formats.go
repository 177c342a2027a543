// Package formats is the one table of filter source formats: it parses
// --format-in values (ParseFormat), sniffs a source's format from its
// content (DetectFormat), and opens a source by path or built-in name
// (Load, Open, OpenWith), all from the rows of one table. Adding a format
// is a package that exports a detector and a loader returning
// *filters.Source, plus one row here.
//
// Format packages never import each other; they meet only in this table.
package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/firecracker"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
	"github.com/seccompbench/seccompbench/filters/kafel"
	"github.com/seccompbench/seccompbench/filters/kubernetes"
	"github.com/seccompbench/seccompbench/filters/lxc"
	"github.com/seccompbench/seccompbench/filters/minijail"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/snapd"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/filters/unsupported"
)

// Format names a filter source format, as Source.Format and --format-in
// spell it; Unknown ("") means "detect from content" where a Format is an
// option, and "no format fits" where DetectFormat returns it.
type Format string

// The formats of the table.
const (
	Unknown     Format = ""
	Policy      Format = beats.FormatName       // Beats / go-seccomp-bpf YAML or JSON
	OCI         Format = oci.FormatName         // OCI runtime-spec / Docker seccomp profile
	RawBPF      Format = "raw-bpf"              // array of struct sock_filter
	SystemdUnit Format = systemd.FormatName     // systemd unit file or directives
	Kubernetes  Format = "kubernetes"           // security-profiles-operator SeccompProfile
	Firecracker Format = "firecracker"          // Firecracker seccompiler JSON
	LXC         Format = "lxc"                  // LXC/Incus/LXD seccomp policy
	Minijail    Format = "minijail"             // minijail/ChromeOS .policy
	Snapd       Format = snapd.FormatName       // snapd seccomp profile (*.src)
	Nsjail      Format = kafel.NsjailFormatName // nsjail config (config.proto text or JSON)
	Kafel       Format = kafel.FormatName       // Kafel policy (nsjail --seccomp_policy)
)

// StdinName is the POLICY spelling that reads the source from
// OpenOptions.Stdin; the source is then named StdinSource in errors.
const (
	StdinName   = "-"
	StdinSource = "stdin"
)

// String returns the format's name, "unknown" for Unknown.
func (f Format) String() string {
	if f == Unknown {
		return "unknown"
	}
	return string(f)
}

// OpenOptions are the choices Load makes by itself, for callers that expose
// them (`--format-in`, `--caps`, `--kernel`, `--compiler`).
type OpenOptions struct {
	// Format forces the input format; Unknown means detect it.
	Format Format
	// OCI resolves OCI profiles' conditions (and docker-default's).
	OCI oci.Options
	// Compiler lays out OCI profiles, docker-default and systemd units
	// (`--compiler`): scmp.CompilerNative or scmp.CompilerLibseccomp
	// (which needs a -tags libseccomp build). Beats policies are always
	// compiled by go-seccomp-bpf, as Beats does, and raw BPF is taken as
	// it is.
	Compiler scmp.Compiler
	// Systemd models systemd units; its Compiler is replaced by Compiler
	// when that is not scmp.CompilerNative. Load fills its DropIns for
	// a unit read from a file (ReadUnit).
	Systemd systemd.Options
	// SystemdRoot is `--root DIR`: systemd units (a bare name is looked
	// up) and their drop-ins are read from the search path under it
	// (ReadUnit); "" reads the drop-in directories beside the unit. A
	// Kubernetes workload's Localhost profile is relative to it instead
	// of the kubelet's /var/lib/kubelet/seccomp (DetectPointer).
	SystemdRoot string
	// followed is set while loading the profile a pointing file names
	// (followPointer), which refuses to follow a second one.
	followed bool
	// ProfileName selects one SeccompProfile of a Kubernetes file by
	// metadata.name or "namespace/name" (`--profile-name`); "" takes the
	// file's only one.
	ProfileName string
	// Bases are extra Kubernetes files (path → content) holding base
	// profiles (`--base`).
	Bases map[string][]byte
	// Thread selects one Firecracker thread category: "vmm", "api" or
	// "vcpu" (`--thread`); "" loads every one, as alternatives.
	Thread string
	// Stdin is read for the spec StdinName ("-"); nil refuses it.
	Stdin io.Reader
	// Arch is the native ABI of the host the filters are for (`--arch`);
	// nil means the library defaults: Beats policies compiled for
	// runtime.GOARCH's ABI (beats.Policy.Compile), OCI profiles for
	// OCI.Arch. A compat ABI stands for its kernel's native one
	// (filters.KernelArches: i386 and x32 mean x86_64, arm means
	// aarch64). Set, Beats policies, the embedded default included, are
	// compiled with beats.Policy.CompileFor (the arch check names its
	// audit arch; syscalls it lacks are dropped with a warning), and OCI
	// profiles, docker-default and the other OCI rows (Kubernetes,
	// Firecracker, LXC, minijail) are resolved with OCI.Arch set to its
	// name unless OCI.Arch is set. Raw BPF is the same on every host;
	// systemd units are modelled for x86_64 only.
	Arch *filters.Arch
	// Minijail holds the minijail choices (--minijail-toolchain,
	// --include-path, --include-root); its Arch, ArchDefault, OCI and
	// ReadFile are set by the loader.
	Minijail minijail.Options
	// ArchDefaulted says Arch is the caller's default (this machine's
	// ABI), not one the user named: minijail policies and Firecracker
	// files whose names name their ABI (mediacodec-x86.policy,
	// aarch64-unknown-linux-musl.json) then follow the name.
	ArchDefaulted bool
}

// native returns the kernel-native ABI of o.Arch, or nil.
func (o OpenOptions) native() *filters.Arch {
	if o.Arch == nil {
		return nil
	}
	return filters.KernelArches(o.Arch)[0]
}

// withHostArch returns o with OCI.Arch set to the name of o.Arch's
// kernel-native ABI when o.Arch is set and OCI.Arch is not, so every
// OCI-based row (Table's OCI rows) resolves its arch conditions for the
// host --arch names.
func (o OpenOptions) withHostArch() OpenOptions {
	if a := o.native(); a != nil && o.OCI.Arch == "" {
		o.OCI.Arch = a.Name
	}
	return o
}

// Row is one format of the table.
type Row struct {
	// Format is the format's name.
	Format Format
	// Names are the --format-in spellings ParseFormat accepts; the first
	// is the one help texts show.
	Names []string
	// Help describes the format in a few words, for --format-in's help.
	Help string
	// Builtins are names Load serves without a file (loaded with nil data).
	Builtins []string
	// Binary rows are tried for data that is not text (filters.IsBinary),
	// the others for text.
	Binary bool
	// OCI rows compile through an OCI profile, so OpenOptions.OCI (caps,
	// kernel version, host arch) decides their conditional parts.
	OCI bool
	// Detect reports whether data is in this format; nil for the fallback
	// row, which takes text no other row claims.
	Detect func(data []byte) bool
	// NearMiss reports whether data almost is in this format (Detect
	// refused it, but its start is this format's and no other row's):
	// DetectFormat then names this row, so the user gets this format's
	// own error, in its own words, rather than the fallback row's. nil
	// when no such test exists.
	NearMiss func(data []byte) bool
	// BOMRejectedBy says which of the format's own tools refuse a file
	// that starts with a UTF-8 byte order mark, and how ("Docker ...
	// refuse it ..."); LoadData then refuses one too, naming the mark. Empty when the toolchain
	// skips the mark (YAML parsers, systemd), and so does LoadData.
	BOMRejectedBy string
	// Load compiles the source; data is nil for a built-in name.
	Load func(name string, data []byte, o OpenOptions) (*filters.Source, error)
}

// Table lists the formats, in the order help texts show them.
var Table = []Row{
	{
		Format: Policy, Names: []string{"policy", "beats", "yaml", "json", "beats-yaml", "beats-json"},
		Help:     "Beats YAML/JSON",
		Builtins: []string{"default", beats.DefaultName},
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			if data == nil {
				name = beats.DefaultName
			}
			return beats.LoadSourceFor(name, data, o.native())
		},
	},
	{
		Format: OCI, Names: []string{"oci", "docker", "oci-json"},
		BOMRejectedBy: "Docker, Podman and runc refuse it in a profile (Go's encoding/json: \"invalid character 'ï' looking for beginning of value\")",
		Help:          "OCI/Docker seccomp profile",
		Builtins:      []string{oci.DockerDefaultName},
		OCI:           true,
		Detect:        oci.Detect,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			return oci.LoadSource(name, data, o.OCI, o.Compiler)
		},
	},
	{
		Format: SystemdUnit, Names: []string{"systemd", "systemd-unit", "unit"},
		Help:     "systemd unit or directives: the stack the systemd version chosen by --systemd-version (default: this host's, else the newest) installs; docs/policy-formats.md lists the modeled directives",
		Detect:   systemd.Detect,
		NearMiss: systemd.NearMiss,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			so := o.Systemd
			if o.Compiler != scmp.CompilerNative {
				so.Compiler = o.Compiler
			}
			return systemd.LoadSource(name, data, so)
		},
	},
	{
		Format: RawBPF, Names: []string{"raw-bpf", "raw", "bpf"},
		Help:   "struct sock_filter array",
		Binary: true,
		Detect: filters.LooksRaw,
		Load: func(name string, data []byte, _ OpenOptions) (*filters.Source, error) {
			return filters.LoadRaw(name, data)
		},
	},
	{
		Format: Kubernetes, Names: []string{"kubernetes", "k8s", "seccompprofile", "spo"},
		Help:   "Kubernetes SeccompProfile; --profile-name, --base",
		OCI:    true,
		Detect: kubernetes.Detect,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			if d, err := kubernetes.Parse(name, data); err == nil && o.ProfileName == "" && len(d.Profiles) > 1 {
				return nil, fmt.Errorf("open filter %q: %w: %d SeccompProfiles (%s); choose one with --profile-name NAME",
					name, ErrAlternatives, len(d.Profiles), strings.Join(d.Names(), ", "))
			}
			progs, _, err := kubernetes.Load(name, data, kubernetes.Options{Name: o.ProfileName, Bases: o.Bases, OCI: o.OCI})
			return single(name, Kubernetes, progs, err)
		},
	},
	{
		Format: Firecracker, Names: []string{"firecracker", "seccompiler"},
		BOMRejectedBy: "Firecracker's seccompiler refuses it (serde_json: \"expected value at line 1 column 1\")",
		Help:          "Firecracker seccompiler JSON; --thread",
		OCI:           true,
		Detect:        firecracker.Detect,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			if o.ArchDefaulted && firecracker.ArchFromName(name) != "" {
				o.OCI.Arch = "" // the file's name names its target
			}
			progs, _, err := firecracker.Load(name, data, firecracker.Options{Thread: o.Thread, OCI: o.OCI})
			if err != nil {
				return nil, err
			}
			src := &filters.Source{Name: name, Format: string(Firecracker), Filters: progs}
			for _, p := range progs {
				src.Parts = append(src.Parts, filters.Part{Name: p.Name, Count: 1})
			}
			return src, nil
		},
	},
	{
		Format: Nsjail, Names: []string{"nsjail", "nsjail-config"},
		Help:   "nsjail config: its Kafel seccomp_string or seccomp_policy_file, and the seccomp_unotify filter",
		Detect: kafel.DetectNsjail,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			src, err := kafel.LoadNsjail(name, data, kafelOptions(name, o))
			if errors.Is(err, kafel.ErrNoPolicy) {
				// The refusal filters/unsupported gives a config it
				// recognizes as having no policy, word for word.
				return nil, fmt.Errorf("open filter %q: %s: %w", name, unsupported.NsjailNoPolicyHint, ErrUnsupportedFormat)
			}
			return kafelNative(o, src, err)
		},
	},
	{
		Format: Kafel, Names: []string{"kafel"},
		Help:   "Kafel policy, as nsjail --seccomp_policy reads it",
		Detect: kafel.Detect,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			src, err := kafel.Load(name, data, kafelOptions(name, o))
			return kafelNative(o, src, err)
		},
	},
	{
		Format: LXC, Names: []string{"lxc", "incus", "lxd"},
		BOMRejectedBy: "LXC refuses it (it reads the version line \"2\" as a number, and the mark is no digit)",
		Help:          "LXC/Incus seccomp policy",
		OCI:           true,
		Detect:        lxc.Detect,
		NearMiss:      lxc.NearMiss,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			progs, _, err := lxc.Load(name, data, lxc.Options{OCI: o.OCI})
			return single(name, LXC, progs, err)
		},
	},
	{
		Format: Minijail, Names: []string{"minijail"},
		BOMRejectedBy: "minijail refuses it (the mark becomes part of the first syscall name)",
		Help:          "minijail .policy",
		OCI:           true,
		Detect:        minijail.Detect,
		NearMiss:      minijail.NearMiss,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			// The ABI itself, not its kernel's native one: an i386
			// policy is a filter for 32-bit processes. A name that
			// names an ABI wins over a defaulted --arch.
			mo := o.Minijail
			mo.OCI, mo.Arch, mo.ArchDefault = o.OCI, o.Arch, o.ArchDefaulted
			progs, _, err := minijail.Load(name, data, mo)
			return single(name, Minijail, progs, err)
		},
	},
	{
		Format: Snapd, Names: []string{"snapd", "snap", "snap-seccomp"},
		BOMRejectedBy: "snap-seccomp refuses it (the mark becomes part of the first syscall name)",
		Help:          "snapd seccomp profile *.src, the deny and allow filters snap-confine installs",
		Detect:        snapd.Detect,
		Load: func(name string, data []byte, o OpenOptions) (*filters.Source, error) {
			return snapd.Load(name, data, snapd.Options{Arch: o.native(), Compiler: o.Compiler})
		},
	},
}

// kafelOptions are the Kafel choices of o: the ABI itself (Kafel
// compiles for the ABI nsjail was built for), and the reader of an
// nsjail config's seccomp_policy_file (none for standard input).
func kafelOptions(name string, o OpenOptions) kafel.Options {
	ko := kafel.Options{Arch: o.Arch}
	if name != StdinSource {
		ko.ReadFile = ReadInput
	}
	return ko
}

// kafelNative adds to a Kafel source, when --compiler asked for
// libseccomp, the note that it was compiled natively: libseccomp's
// database cannot keep Kafel's first-match-wins lists.
func kafelNative(o OpenOptions, src *filters.Source, err error) (*filters.Source, error) {
	if err == nil && o.Compiler == scmp.CompilerLibseccomp {
		for _, p := range src.Filters {
			p.Notes = append(p.Notes, src.Name+": compiled by the native compiler, not libseccomp: libseccomp's rule database cannot keep Kafel's first-match-wins order")
		}
	}
	return src, err
}

// single wraps the one program a format loader returned as a Source. The
// loaders of the formats generated through filters/ocigen keep their
// warnings as text in Program.Warnings, so Source.Warnings stays nil.
func single(name string, f Format, progs []*filters.Program, err error) (*filters.Source, error) {
	if err != nil {
		return nil, err
	}
	return &filters.Source{Name: name, Format: string(f), Filters: progs}, nil
}

// UsesOCI reports whether sources of the format named f (as
// Source.Format spells it) may hold conditions that OpenOptions.OCI's
// capabilities and kernel version decide (moby's includes/excludes and
// minKernel): OCI profiles and docker-default only. The other rows that
// compile through an OCI profile (Kubernetes, Firecracker, LXC, minijail)
// generate none, so outputs say nothing about capabilities for them.
func UsesOCI(f string) bool {
	return Format(f) == OCI
}

// row returns the table row of f, or nil.
func row(f Format) *Row {
	for i := range Table {
		if Table[i].Format == f {
			return &Table[i]
		}
	}
	return nil
}

// Choices returns the --format-in values as help and errors list them:
// "auto, policy, oci, systemd or raw-bpf".
func Choices() string {
	names := []string{"auto"}
	for _, r := range Table {
		names = append(names, r.Names[0])
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Help returns a one-line description of the --format-in values, e.g.
// "policy (Beats YAML/JSON), oci (OCI/Docker seccomp profile), ...".
func Help() string {
	var parts []string
	for _, r := range Table {
		parts = append(parts, fmt.Sprintf("%s (%s)", r.Names[0], r.Help))
	}
	return strings.Join(parts, ", ")
}

// ParseFormat parses a --format-in value: "auto" or "" (Unknown: detect
// from content) or any of a row's Names, case-insensitive.
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(s)
	if s == "" || s == "auto" {
		return Unknown, nil
	}
	for _, r := range Table {
		for _, n := range r.Names {
			if s == n || s == string(r.Format) {
				return r.Format, nil
			}
		}
	}
	return Unknown, fmt.Errorf("parse input format %q: want %s", s, Choices())
}

// DetectFormat guesses a filter source's format from its content (the name
// is only for future use of extensions): binary data (filters.IsBinary) is
// the first Binary row whose Detect accepts it (RawBPF when its length is
// a multiple of filters.SockFilterSize), else Unknown; text that
// filters/unsupported recognizes (Kafel, nsjail configs, Helm templates,
// C sock_filter arrays, strace output) is Unknown, before any row is
// tried; other text is the first other row whose Detect accepts it (an OCI profile: text starting with "{"
// with an OCI key, valid JSON or not, so a broken profile gets the JSON
// syntax error with its line and column rather than the Beats schema's
// complaints; a systemd unit: a known [Section] or seccomp directive
// first; then a Kubernetes SeccompProfile, a Firecracker seccompiler
// file, an LXC policy and a minijail policy, in table order), else the
// first row whose NearMiss
// accepts it (an LXC policy with a bad policy type line, a minijail
// policy with an unknown syscall, a systemd unit without sections...:
// the error is then that format's), else the fallback row (Policy),
// whose parser reports any remaining problem with a line number.
func DetectFormat(name string, data []byte) Format {
	bin := filters.IsBinary(data)
	// Before the rows: a Helm template of a SeccompProfile would
	// otherwise be claimed by the Kubernetes row and refused with a YAML
	// error.
	if _, _, ok := unsupported.Detect(data); ok && !bin {
		return Unknown
	}
	fallback := Unknown
	for _, r := range Table {
		switch {
		case r.Binary != bin:
		case r.Detect == nil:
			fallback = r.Format
		case r.Detect(data):
			return r.Format
		}
	}
	for _, r := range Table {
		if r.Binary == bin && r.NearMiss != nil && r.NearMiss(data) {
			return r.Format
		}
	}
	return fallback
}

// ErrEmpty is wrapped (in a *filters.SourceError naming the file) by
// LoadData for a source that is empty or only blank space, whatever its
// name or the format asked for.
var ErrEmpty = errors.New("empty file")

// ErrUnsupportedFormat is returned by Open for a source it cannot load as
// one filter (a systemd unit: a stack), or whose format it cannot detect.
var ErrUnsupportedFormat = errors.New("unsupported filter format")

// Load returns the filters named by spec:
//
//   - a row's built-in name: "default" or "embedded:default" (the embedded
//     default policy; a file named "default" must be written "./default"),
//     "docker-default" (Docker's default profile for o.OCI's capabilities);
//     docker-default is served whatever o.Format says, the others only
//     when o.Format is Unknown;
//   - StdinName ("-"): the content of o.Stdin, named StdinSource;
//   - anything else: a file path, whose format is o.Format or detected
//     (DetectFormat).
//
// Read errors wrap the *os.PathError (which names the path); source errors
// are *filters.SourceError values naming the path; binary data of no
// format wraps ErrUnsupportedFormat and says why the raw reader refused it;
// a known format no row reads (filters/unsupported: Kafel, nsjail
// configs, Helm templates, C sock_filter
// source, strace output) wraps ErrUnsupportedFormat after a hint saying
// what it is and what to do instead.
func Load(spec string, o OpenOptions) (*filters.Source, error) {
	o = o.withHostArch()
	for _, r := range Table {
		for _, b := range r.Builtins {
			if spec == b && (o.Format == Unknown || r.Format == OCI) {
				return r.Load(spec, nil, o)
			}
		}
	}
	if rest, ok := strings.CutPrefix(spec, "embedded:"); ok && o.Format == Unknown {
		return nil, fmt.Errorf("open filter: no embedded policy %q; the only one is %q: %w", rest, beats.DefaultName, ErrUnsupportedFormat)
	}
	if spec == StdinName {
		if o.Stdin == nil {
			return nil, fmt.Errorf("open filter: %q means standard input, which this caller does not offer: %w", spec, ErrUnsupportedFormat)
		}
		data, err := ReadFrom("standard input", o.Stdin)
		if err != nil {
			return nil, err
		}
		// No path to take a minijail policy's ABI or toolchain from.
		o.Minijail.Stdin = true
		return LoadData(StdinSource, data, o)
	}
	unitOK := o.Format == Unknown || o.Format == SystemdUnit
	// A bare unit name under --root is looked up in its search path.
	if unitOK && RootUnitName(spec, o.SystemdRoot) {
		u, err := LookupUnit(spec, o.SystemdRoot)
		if err != nil {
			return nil, err
		}
		o.Format, o.Systemd.DropIns = SystemdUnit, u.DropIns
		return withWarnings(LoadData(u.Name, u.Data, o))(u.Warnings)
	}
	if unitOK {
		if err := MissingUnit(spec, o.SystemdRoot); err != nil {
			return nil, err
		}
		if systemd.IsUnitName(spec) && masks(spec) {
			return nil, maskedError(spec)
		}
	}
	// Read errors name the file and what failed ("open PATH: …", "read
	// PATH: input too large: …"): no prefix to add.
	data, err := ReadInput(spec)
	if err != nil {
		return nil, builtinHint(spec, err)
	}
	if f := o.Format; f == SystemdUnit || f == Unknown && DetectFormat(spec, bytes.TrimPrefix(data, utf8BOM)) == SystemdUnit {
		// The unit's drop-ins, as systemd merges them.
		u, err := LookupUnit(spec, o.SystemdRoot)
		if err != nil {
			return nil, err
		}
		o.Systemd.DropIns = u.DropIns
		return withWarnings(LoadData(spec, data, o))(u.Warnings)
	}
	return LoadData(spec, data, o)
}

// withWarnings returns a function that adds ws (LookupUnit's) in front
// of the warnings of src, LoadData's result, and returns src and err.
func withWarnings(src *filters.Source, err error) func(ws []*filters.SourceError) (*filters.Source, error) {
	return func(ws []*filters.SourceError) (*filters.Source, error) {
		if err == nil && len(ws) > 0 {
			src.Warnings = append(append([]*filters.SourceError(nil), ws...), src.Warnings...)
		}
		return src, err
	}
}

// builtinHint adds "did you mean" to err, a missing file spec, when spec
// is a bare name (no "/") close to a built-in one: docker-defualt gets
// docker-default. err stays wrapped (errors.Is(err, fs.ErrNotExist)).
func builtinHint(spec string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) || strings.Contains(spec, "/") {
		return err
	}
	names := map[string]bool{}
	for _, r := range Table {
		for _, b := range r.Builtins {
			names[b] = true
		}
	}
	if s := suggest.Closest(spec, names, 1); len(s) > 0 {
		return fmt.Errorf("%w; did you mean the built-in %q?", err, s[0])
	}
	return err
}

// LoadData loads data read from the file name: its format is o.Format or
// detected (DetectFormat). Errors are those of Load but for reading.
func LoadData(name string, data []byte, o OpenOptions) (*filters.Source, error) {
	// One size limit for every format, checked before any parser runs.
	if err := filters.CheckSize(name, int64(len(data))); err != nil {
		return nil, err
	}
	data, err := skipBOM(name, data, o)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		what := "0 bytes"
		if len(data) > 0 {
			what = "only blank space"
		}
		return nil, fmt.Errorf("open filter: %w", &filters.SourceError{File: name, Err: ErrEmpty,
			Msg: fmt.Sprintf("empty file (%s): no policy of any format to read", what)})
	}
	o = o.withHostArch()
	f := o.Format
	if f == Unknown {
		if src, ok, err := followPointer(name, data, o); ok {
			return src, err
		}
		f = DetectFormat(name, data)
	}
	if r := row(f); r != nil {
		return r.Load(name, data, o)
	}
	if _, hint, ok := unsupported.Detect(data); ok {
		return nil, fmt.Errorf("open filter %q: %s: %w", name, hint, ErrUnsupportedFormat)
	}
	// Binary data that is no whole number of sock_filter records: the raw
	// reader says how many bytes are left over.
	if _, err := filters.ParseRaw(name, data); err != nil {
		return nil, fmt.Errorf("open filter %q: binary data, neither a YAML/JSON policy nor a raw BPF filter: %w", name, err)
	}
	return nil, fmt.Errorf("open filter %q: %s: %w", name, f, ErrUnsupportedFormat)
}

// followPointer loads the profile a pointing file names (DetectPointer:
// a compose file, a quadlet, a Kubernetes workload), resolved against the
// file's directory, with a warning saying where it came from; ok is false
// for a file that points at nothing. A file read from standard input,
// a refused pointer (unconfined, nsjail) or a pointer to another pointer
// is an error wrapping ErrPointer and ErrUnsupportedFormat (a usage
// error, exit 2, as for the inputs filters/unsupported refuses).
func followPointer(name string, data []byte, o OpenOptions) (*filters.Source, bool, error) {
	p, ok, err := DetectPointer(name, data, o.SystemdRoot)
	if !ok || err != nil {
		return nil, ok, err
	}
	if p.Refuse != "" {
		return nil, true, fmt.Errorf("open filter %q: a %s file (%s): %s: %w: %w", name, p.Format, p.Where, p.Refuse, ErrPointer, ErrUnsupportedFormat)
	}
	target := p.Target
	if target != oci.DockerDefaultName && !p.Resolved && !filepath.IsAbs(target) {
		if name == StdinSource {
			return nil, true, fmt.Errorf("open filter %q: a %s file naming %s relative to its directory, which standard input has not; give the file's path: %w: %w", name, p.Format, target, ErrPointer, ErrUnsupportedFormat)
		}
		target = filepath.Join(filepath.Dir(name), target)
	}
	if o.followed {
		return nil, true, fmt.Errorf("open filter %q: a %s file pointing at %s from another pointing file; give the profile itself: %w: %w", name, p.Format, target, ErrPointer, ErrUnsupportedFormat)
	}
	o.followed = true
	src, err := Load(target, o)
	if err != nil {
		return nil, true, fmt.Errorf("follow %s file %s (%s): %w", p.Format, name, p.Where, err)
	}
	msg := fmt.Sprintf("a %s file: loaded the profile its %s names, %s", p.Format, p.Where, target)
	if p.Note != "" {
		msg += "; " + p.Note
	}
	src.Warnings = append([]*filters.SourceError{{File: name, Msg: msg}}, src.Warnings...)
	return src, true, nil
}

// utf8BOM is the UTF-8 byte order mark, U+FEFF encoded.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// skipBOM returns data without a leading UTF-8 byte order mark (Windows
// editors save one) when the format of the rest (o.Format or detected)
// is one whose toolchain skips it too: Beats and Kubernetes YAML/JSON,
// systemd units (src/shared/conf-parser.c skips it on the first line).
// For the others (Row.BOMRejectedBy) it returns a *filters.SourceError at
// 1:1 naming the mark and the toolchain that refuses it, so the policy
// is fixed before it reaches that toolchain.
func skipBOM(name string, data []byte, o OpenOptions) ([]byte, error) {
	rest, ok := bytes.CutPrefix(data, utf8BOM)
	if !ok {
		return data, nil
	}
	f := o.Format
	if f == Unknown {
		f = DetectFormat(name, rest)
	}
	if r := row(f); r != nil && r.BOMRejectedBy != "" {
		return nil, &filters.SourceError{File: name, Line: 1, Col: 1, Err: ErrBOM,
			Msg:  fmt.Sprintf("the file (format %s) starts with a UTF-8 byte order mark (bytes EF BB BF): %s", r.Format, r.BOMRejectedBy),
			Hint: "save the file as UTF-8 without a byte order mark (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)"}
	}
	return rest, nil
}

// ErrBOM is wrapped by LoadData's error for a file that starts with a
// UTF-8 byte order mark in a format whose toolchain refuses one
// (Row.BOMRejectedBy).
var ErrBOM = errors.New("UTF-8 byte order mark")

// Open is OpenWith with default options.
func Open(spec string) (*filters.Program, error) { return OpenWith(spec, OpenOptions{}) }

// OpenWith is Load for callers that take one filter: it returns the
// source's only filter. A systemd unit, which installs a stack, is refused
// with an error wrapping ErrUnsupportedFormat that points to the
// commands that model stacks; a source of several alternative filters
// (a Firecracker file without OpenOptions.Thread) with one
// (ErrAlternatives) that names them.
func OpenWith(spec string, o OpenOptions) (*filters.Program, error) {
	src, err := Load(spec, o)
	if err != nil {
		return nil, err
	}
	if err := OneFilter(src); err != nil {
		return nil, err
	}
	return src.Filters[0], nil
}

// ErrAlternatives is returned (wrapped) by OneFilter for a source that
// holds several alternative filters where one is needed, and by Load for
// a Kubernetes file of several SeccompProfiles without
// OpenOptions.ProfileName.
var ErrAlternatives = errors.New("several alternative filters")

// OneFilter returns nil when src installs exactly one filter, else an
// error: for a stack (a systemd unit, a snapd profile) one wrapping
// ErrUnsupportedFormat that names the commands taking stacks,
// for alternatives (a Firecracker file's thread categories) one wrapping
// ErrAlternatives that names them and the --thread flag; for a source of
// no filter at all one wrapping ErrUnsupportedFormat.
func OneFilter(src *filters.Source) error {
	switch {
	case src.Stacked && Format(src.Format) != SystemdUnit:
		var names []string
		for _, p := range src.Filters {
			names = append(names, p.Name)
		}
		return fmt.Errorf("open filter %q: a %s profile installs a stack of %d filters (%s), not one; give it as POLICY to simulate, lint, estimate, run or merge, or compile it with --format text or --save DIR: %w",
			src.Name, src.Format, len(src.Filters), strings.Join(names, ", "), ErrUnsupportedFormat)
	case src.Stacked:
		return fmt.Errorf("open filter %q: a systemd unit installs a stack of filters, not one; model it with compile --systemd-stack, run --systemd-unit, or give it as POLICY to simulate, lint, estimate or run: %w", src.Name, ErrUnsupportedFormat)
	case len(src.Filters) == 0:
		return fmt.Errorf("open filter %q: it holds no filter: %w", src.Name, ErrUnsupportedFormat)
	case len(src.Filters) != 1:
		var names []string
		for _, p := range src.Filters {
			names = append(names, p.Name)
		}
		return fmt.Errorf("open filter %q: %w: %s; choose one with --thread %s", src.Name, ErrAlternatives,
			strings.Join(names, ", "), strings.Join(names, "|"))
	}
	return nil
}
