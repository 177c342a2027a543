package formats_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
)

const pointers = "testdata/pointers/"

// TestPointerFilesFollowed: a compose file, a quadlet and a Deployment
// load the profile they name (relative to the file; a Localhost profile
// under --root) and say so in a warning; RuntimeDefault loads
// docker-default with a note.
func TestPointerFilesFollowed(t *testing.T) {
	want, err := formats.Load(pointers+"profiles/tight.json", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, root, format string }{
		{"compose.yaml", "", "docker-compose"},
		{"app.container", "", "podman-quadlet"},
		{"deployment.yaml", pointers + "kubelet", "kubernetes-workload"},
	} {
		src, err := formats.Load(pointers+c.file, formats.OpenOptions{SystemdRoot: c.root})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if len(src.Filters) != 1 || !slices.Equal(src.Filters[0].Insns, want.Filters[0].Insns) {
			t.Errorf("%s: not the named profile's filter", c.file)
		}
		if len(src.Warnings) == 0 || !strings.Contains(src.Warnings[0].Msg, c.format) || !strings.Contains(src.Warnings[0].Msg, "tight.json") {
			t.Errorf("%s: warnings %v", c.file, src.Warnings)
		}
	}
	src, err := formats.Load(pointers+"pod-runtime-default.yaml", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := formats.Load("docker-default", formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(src.Filters[0].Insns, dd.Filters[0].Insns) || !strings.Contains(src.Warnings[0].Msg, "RuntimeDefault") {
		t.Errorf("RuntimeDefault: not docker-default with a note: %v", src.Warnings)
	}
}

// TestPointerFilesRefused: unconfined containers, two different profiles and a relative pointer on standard
// input are refused naming the format, not as a Beats or YAML error.
func TestPointerFilesRefused(t *testing.T) {
	for file, want := range map[string]string{
		"compose-unconfined.yaml": "docker-compose file (service debug): seccomp=unconfined",
		"pod-unconfined.yaml":     "type Unconfined",
		"compose-two.yaml":        "different profiles: other.json (service b); profiles/tight.json (service a)",
	} {
		_, err := formats.Load(pointers+file, formats.OpenOptions{})
		if !errors.Is(err, formats.ErrPointer) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want ErrPointer with %q", file, err, want)
		}
	}
	_, err := formats.Load(formats.StdinName, formats.OpenOptions{Stdin: strings.NewReader("[Container]\nSeccompProfile=x.json\n")})
	if !errors.Is(err, formats.ErrPointer) || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("stdin quadlet: %v", err)
	}
}
