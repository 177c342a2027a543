package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

func TestDetectFormatCorpus(t *testing.T) {
	tests := []struct {
		file string
		want Format
	}{
		{"docker-default.json", OCI},
		{"podman-like.json", OCI},
		{"vmm-like.json", OCI},
		{"raw.bpf", RawBPF},
		{"hardened.service", SystemdUnit},
		{"timesyncd-like.service", SystemdUnit},
		{"default.yaml", Policy},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(filterstest.PoliciesDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectFormat(tt.file, b); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, data string
		want       Format
	}{
		{"directive string", "SystemCallFilter=@system-service", SystemdUnit},
		{"comment then section", "# x\n\n[Service]\nUser=x\n", SystemdUnit},
		{"unknown section is not a unit", "[Frobnicate]\n", Policy},
		{"other key=value is not a unit", "Foo=bar\n", Policy},
		{"yaml", "seccomp:\n  default_action: allow\n", Policy},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"auto": Unknown, "oci": OCI, "systemd": SystemdUnit, "raw-bpf": RawBPF, "beats-yaml": Policy} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded")
	}
}

// TestOpenFormats opens every non-policy corpus entry through Open and
// OpenWith, and checks that options reach the OCI compiler.
func TestOpenFormats(t *testing.T) {
	for _, spec := range []string{oci.DockerDefaultName, filterstest.Policy("vmm-like.json"), filterstest.Policy("raw.bpf")} {
		p, err := Open(spec)
		if err != nil {
			t.Fatalf("Open(%s): %v", spec, err)
		}
		if err := filters.Validate(p.Insns); err != nil {
			t.Errorf("Open(%s): invalid program: %v", spec, err)
		}
	}
	if _, err := Open(filterstest.Policy("hardened.service")); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("Open(unit) = %v, want ErrUnsupportedFormat", err)
	}
	nr, _ := filters.ArchX86_64.Lookup("mount")
	for _, tt := range []struct {
		name string
		opt  OpenOptions
		spec string
		want filters.Action
	}{
		{"default caps", OpenOptions{}, oci.DockerDefaultName, filters.ActionErrno},
		{"CAP_SYS_ADMIN", OpenOptions{OCI: oci.Options{Caps: []string{"CAP_SYS_ADMIN"}}}, oci.DockerDefaultName, filters.ActionAllow},
		{"file with caps", OpenOptions{OCI: oci.Options{Caps: []string{"CAP_SYS_ADMIN"}}}, filterstest.Policy("docker-default.json"), filters.ActionAllow},
		{"forced format", OpenOptions{Format: OCI}, filterstest.Policy("docker-default.json"), filters.ActionErrno},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := OpenWith(tt.spec, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			r, err := filters.Emulate(p, filters.ArchX86_64.Data(nr))
			if err != nil {
				t.Fatal(err)
			}
			if got := filters.KernelAction(r.Ret); got != tt.want {
				t.Errorf("mount = %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := OpenWith(filterstest.Policy("docker-default.json"), OpenOptions{Format: RawBPF}); !errors.Is(err, filters.ErrBadRaw) {
		t.Errorf("forcing raw-bpf on JSON = %v, want ErrBadRaw", err)
	}
}

// TestTable: --format-in parsing, its help and the format names all come
// from Table; every row has a loader and the text rows but one a detector.
func TestTable(t *testing.T) {
	if got, want := Choices(), "auto, policy, oci, systemd, raw-bpf, kubernetes, firecracker, nsjail, kafel, lxc, minijail or snapd"; got != want {
		t.Errorf("Choices() = %q, want %q", got, want)
	}
	fallbacks := 0
	for _, r := range Table {
		if r.Load == nil {
			t.Errorf("%s: no loader", r.Format)
		}
		if r.Detect == nil {
			fallbacks++
		}
		for _, n := range append([]string{string(r.Format)}, r.Names...) {
			if got, err := ParseFormat(strings.ToUpper(n)); err != nil || got != r.Format {
				t.Errorf("ParseFormat(%q) = %q, %v; want %q", n, got, err, r.Format)
			}
		}
		if !strings.Contains(Help(), r.Names[0]+" (") {
			t.Errorf("Help() = %q lacks %s", Help(), r.Names[0])
		}
	}
	if fallbacks != 1 {
		t.Errorf("%d rows without a detector, want exactly one fallback", fallbacks)
	}
}

// TestLoadWarnings: Load keeps the loaders' warnings located, and the
// program's text form says the same.
func TestLoadWarnings(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		file, data string
		line, col  int
	}{
		{"p.json", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n \"syscalls\": [{\"names\": [\"read\", \"raed\"], \"action\": \"SCMP_ACT_ALLOW\"}]}", 2, 34},
		{"u.service", "[Service]\nSystemCallFilter=read nosuchcall\n", 2, 0},
	} {
		path := filepath.Join(dir, tt.file)
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Load(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(src.Warnings) != 1 {
			t.Fatalf("%s: warnings %v, want one", tt.file, src.Warnings)
		}
		w := src.Warnings[0]
		if w.File != path || w.Line != tt.line || w.Col != tt.col {
			t.Errorf("%s: warning at %s:%d:%d, want %s:%d:%d", tt.file, w.File, w.Line, w.Col, path, tt.line, tt.col)
		}
		if src.Format == string(OCI) && src.Filters[0].Warnings[0] != w.Error() {
			t.Errorf("Program.Warnings %q, Source.Warnings %q", src.Filters[0].Warnings, w.Error())
		}
	}
}

// TestDetectNewFormats: every sample of the formats wired in issue 12 is
// detected as its format through the table, and the inputs that used to
// be misdiagnosed are read (or named) instead.
func TestDetectNewFormats(t *testing.T) {
	for _, tt := range []struct {
		file string
		want Format
	}{
		{"k8s-profiles.yaml", Kubernetes},
		{"firecracker-vmm.json", Firecracker},
		{"lxc.seccomp", LXC},
		{"chrome-renderer.policy", Minijail},
		{"minijail/common.policy", Minijail},
	} {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filterstest.Policy(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectFormat(tt.file, b); got != tt.want {
				t.Errorf("DetectFormat = %s, want %s", got, tt.want)
			}
		})
	}
	// The three cases of issue 12, as a new user met them.
	for _, tt := range []struct {
		name, data string
		want       Format
		thread     string
		filters    int
	}{
		{"firecracker seccompiler JSON (was: unknown key \"vmm\")",
			`{"vmm": {"default_action": "trap", "filter_action": "allow", "filter": [{"syscall": "read"}]},
			  "api": {"default_action": "trap", "filter_action": "allow", "filter": [{"syscall": "write"}]}}`,
			Firecracker, "", 2},
		{"two SeccompProfile documents (was: more than one YAML document)",
			"apiVersion: security-profiles-operator.x-k8s.io/v1beta1\nkind: SeccompProfile\nmetadata:\n  name: a\nspec:\n  defaultAction: SCMP_ACT_ERRNO\n  syscalls:\n  - action: SCMP_ACT_ALLOW\n    names: [read]\n" +
				"---\napiVersion: security-profiles-operator.x-k8s.io/v1beta1\nkind: SeccompProfile\nmetadata:\n  name: b\nspec:\n  defaultAction: SCMP_ACT_ALLOW\n",
			Kubernetes, "", 1},
		{"incus profile (was: YAML parse error)", "2\ndenylist\nreject_force_umount\n[all]\nkexec_load errno 38\n", LXC, "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != tt.want {
				t.Fatalf("DetectFormat = %s, want %s", got, tt.want)
			}
			o := OpenOptions{Thread: tt.thread}
			if tt.want == Kubernetes {
				o.ProfileName = "b"
			}
			src, err := LoadData("x", []byte(tt.data), o)
			if err != nil {
				t.Fatalf("LoadData: %v", err)
			}
			if got := len(src.Filters); got != tt.filters {
				t.Errorf("%d filters, want %d", got, tt.filters)
			}
		})
	}
}

// TestLoadUnsupported: an nsjail config without a seccomp policy, a Helm template
// of a SeccompProfile (which the Kubernetes row would otherwise claim), C
// sock_filter source and strace output are refused with ErrUnsupportedFormat and a hint naming them.
func TestLoadUnsupported(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"nsjail", "name: \"x\"\nmode: ONCE\nmount {\n dst: \"/proc\"\n}\n", "nsjail installs no seccomp filter"},
		{"helm SeccompProfile", "apiVersion: security-profiles-operator.x-k8s.io/v1beta1\nkind: SeccompProfile\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  defaultAction: SCMP_ACT_ERRNO\n", "Helm chart template"},
		{"c", "struct sock_filter f[] = {\n BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0),\n};\n", "sock_filter"},
		{"strace -c", "% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ----------------\n100.00    0.000010          10         1           read\n", "strace -c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != Unknown {
				t.Errorf("DetectFormat = %s, want unknown", got)
			}
			_, err := LoadData("x", []byte(tt.data), OpenOptions{})
			if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadData = %v, want ErrUnsupportedFormat mentioning %q", err, tt.want)
			}
		})
	}
}

// TestKafelIncludesOnly: a Kafel file of #include lines only is Kafel,
// refused at its #include, not a Beats policy with no syscalls.
func TestKafelIncludesOnly(t *testing.T) {
	data := []byte("#include \"short_loop_b.policy\"\n")
	if got := DetectFormat("short_loop.policy", data); got != Kafel {
		t.Errorf("DetectFormat = %s, want %s", got, Kafel)
	}
	_, err := LoadData("short_loop.policy", data, OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "short_loop.policy:1:1: #include \"short_loop_b.policy\": no include search path") {
		t.Errorf("LoadData = %v, want the #include refusal at 1:1", err)
	}
}

// TestNsjailNoPolicy: an nsjail config that the nsjail reader parses to
// no seccomp policy (forced with --format-in nsjail, or JSON) is refused
// as the config filters/unsupported recognizes is, word for word, never
// loaded as a source of no filter.
func TestNsjailNoPolicy(t *testing.T) {
	cfg := "name: \"x\"\nmode: ONCE\nmount {\n dst: \"/proc\"\n}\n"
	_, detected := LoadData("x", []byte(cfg), OpenOptions{})
	if !errors.Is(detected, ErrUnsupportedFormat) {
		t.Fatalf("detected: %v, want ErrUnsupportedFormat", detected)
	}
	for _, tt := range []struct{ name, data string }{
		{"forced text", cfg},
		{"forced JSON", `{"name": "x", "seccompString": []}`},
		{"unotify off", "name: \"x\"\nseccomp_unotify: false\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadData("x", []byte(tt.data), OpenOptions{Format: Nsjail})
			if !errors.Is(err, ErrUnsupportedFormat) || err.Error() != detected.Error() {
				t.Errorf("err %v, want %v", err, detected)
			}
		})
	}
	if err := OneFilter(&filters.Source{Name: "x"}); !errors.Is(err, ErrUnsupportedFormat) || strings.Contains(err.Error(), "--thread") {
		t.Errorf("OneFilter of no filter = %v, want ErrUnsupportedFormat without a --thread hint", err)
	}
}

// TestLoadStdin: "-" reads OpenOptions.Stdin, named "stdin".
func TestLoadStdin(t *testing.T) {
	src, err := Load(StdinName, OpenOptions{Stdin: strings.NewReader("SystemCallFilter=@system-service\n")})
	if err != nil {
		t.Fatal(err)
	}
	if src.Name != StdinSource || src.Format != string(SystemdUnit) {
		t.Errorf("got %s %s, want %s %s", src.Name, src.Format, StdinSource, SystemdUnit)
	}
	if _, err := Load(StdinName, OpenOptions{}); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("Load(-) without Stdin = %v, want ErrUnsupportedFormat", err)
	}
}

// TestOneFilter: Firecracker's thread categories are alternatives that
// OpenWith names, and --thread picks one.
func TestOneFilter(t *testing.T) {
	path := filterstest.Policy("firecracker-vmm.json")
	_, err := OpenWith(path, OpenOptions{})
	if !errors.Is(err, ErrAlternatives) || !strings.Contains(err.Error(), "vmm, api, vcpu") {
		t.Errorf("OpenWith without thread = %v, want ErrAlternatives naming vmm, api, vcpu", err)
	}
	p, err := OpenWith(path, OpenOptions{Thread: "vcpu"})
	if err != nil || p.Name != "vcpu" {
		t.Errorf("OpenWith --thread vcpu = %v, %v; want the vcpu filter", p, err)
	}
}

// TestNearMiss: text that starts as one format's but fails its detector
// goes to that format, whose error speaks its language, not to the Beats
// fallback's YAML complaints.
func TestNearMiss(t *testing.T) {
	tests := []struct {
		src  string
		want Format
		err  string
	}{
		{"2\ngreylist\nread\n", LXC, "Bad seccomp policy style"},
		{"# typo\nreead: 1\nwrite: 1\n", Minijail, `unknown syscall "reead" on x86_64 (did you mean read?)`},
		{"default_action: kill\n", Policy, ""},
		{"ExecStart=/bin/true\nSystemCallFilter=@system-service\nFooBar=1\n", SystemdUnit, ""},
	}
	for _, tt := range tests {
		if got := DetectFormat("p", []byte(tt.src)); got != tt.want {
			t.Errorf("DetectFormat(%q) = %v, want %v", tt.src, got, tt.want)
		}
		if tt.err == "" {
			continue
		}
		if _, err := LoadData("p", []byte(tt.src), OpenOptions{}); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("LoadData(%q) = %v, want an error containing %q", tt.src, err, tt.err)
		}
	}
}

// TestLoadEmpty: an empty or blank source is an "empty file" error naming
// it, whatever its name or the format asked for, never a format's own
// complaint (the Beats schema's used to answer for every name).
func TestLoadEmpty(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		format     Format
	}{
		{"x.service", "", Unknown}, {"x.json", "\n \n", Unknown}, {"x.policy", "", Minijail}, {"x.src", "\t\n", Snapd},
	} {
		_, err := LoadData(tt.name, []byte(tt.data), OpenOptions{Format: tt.format})
		var se *filters.SourceError
		if !errors.Is(err, ErrEmpty) || !errors.As(err, &se) || se.File != tt.name || !strings.Contains(err.Error(), tt.name+": empty file") {
			t.Errorf("LoadData(%s, %q) = %v, want an empty-file *SourceError naming it", tt.name, tt.data, err)
		}
	}
}

// TestKafelRows: a Kafel policy and an nsjail config are detected and
// loaded through the table; --compiler libseccomp gets a note that Kafel
// compiles natively.
func TestKafelRows(t *testing.T) {
	pol := "POLICY p { ALLOW { read } }\nUSE p DEFAULT KILL\n"
	cfg := "name: \"x\"\nmode: ONCE\nseccomp_string: \"ALLOW { read } DEFAULT KILL\"\n"
	if got := DetectFormat("x", []byte(pol)); got != Kafel {
		t.Errorf("policy detected as %s", got)
	}
	if got := DetectFormat("x", []byte(cfg)); got != Nsjail {
		t.Errorf("config detected as %s", got)
	}
	src, err := LoadData("x", []byte(pol), OpenOptions{Compiler: scmp.CompilerLibseccomp})
	if err != nil || src.Format != string(Kafel) || len(src.Filters[0].Notes) != 1 || !strings.Contains(src.Filters[0].Notes[0], "native compiler") {
		t.Errorf("LoadData = %+v, %v; want a Kafel source with the native-compiler note", src, err)
	}
	if f, err := ParseFormat("nsjail-config"); err != nil || f != Nsjail {
		t.Errorf("ParseFormat(nsjail-config) = %v, %v", f, err)
	}
}
