package formats

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/seccompbench/seccompbench/filters/kubernetes"
	"github.com/seccompbench/seccompbench/filters/oci"
)

// Pointer is a file that does not hold a seccomp profile but names one:
// a docker-compose file's security_opt, a Podman quadlet's
// SeccompProfile=, a Kubernetes workload's securityContext.seccompProfile.
type Pointer struct {
	// Format names the pointing file's format, e.g. "docker-compose".
	Format string
	// Target is the profile as the file names it: a path (relative to
	// the file's directory unless absolute) or the built-in
	// "docker-default".
	Target string
	// Where says which part of the file names it, e.g. `service "web"
	// security_opt`.
	Where string
	// Resolved says Target is a path already resolved (a Kubernetes
	// Localhost profile under the kubelet's directory or --root), not
	// relative to the pointing file.
	Resolved bool
	// Note is said along with the profile, e.g. that RuntimeDefault is
	// modeled as docker-default; "" for none.
	Note string
	// Refuse, when not "", is why the file cannot be followed (an
	// unconfined container).
	Refuse string
}

// ErrPointer is wrapped by Load's error for a file that names a profile
// it cannot be followed to (Pointer.Refuse; the error also wraps
// ErrUnsupportedFormat), or that names different profiles for different
// containers (also wrapping ErrAlternatives).
var ErrPointer = errors.New("file points at a seccomp profile")

// kubeletSeccompDir is where the kubelet reads Localhost profiles
// (kubelet --root-dir /var/lib/kubelet, pkg/kubelet: seccomp/).
const kubeletSeccompDir = "/var/lib/kubelet/seccomp"

// DetectPointer reports whether data is a file that points at a profile
// (Pointer) rather than holding one; root is `--root DIR`, under which a
// Kubernetes Localhost profile is looked up instead of the kubelet's
// /var/lib/kubelet/seccomp. Errors wrap ErrPointer: a file naming
// several different profiles.
func DetectPointer(name string, data []byte, root string) (*Pointer, bool, error) {
	switch {
	case bytes.Contains(data, []byte("[Container]")) && bytes.Contains(data, []byte("SeccompProfile=")):
		return quadletPointer(data)
	case bytes.Contains(data, []byte("security_opt")) && bytes.Contains(data, []byte("services")):
		return composePointer(name, data)
	case bytes.Contains(data, []byte("seccompProfile")) && !kubernetes.Detect(data):
		return kubePointer(name, data, root)
	}
	return nil, false, nil
}

// quadletPointer reads a Podman quadlet .container file's [Container]
// SeccompProfile= (podman-systemd.unit(5)); the last assignment wins.
func quadletPointer(data []byte) (*Pointer, bool, error) {
	section, target := "", ""
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			section = t
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && section == "[Container]" && strings.TrimSpace(k) == "SeccompProfile" {
			target = strings.TrimSpace(v)
		}
	}
	if target == "" {
		return nil, false, nil
	}
	p := &Pointer{Format: "podman-quadlet", Target: target, Where: "[Container] SeccompProfile="}
	if target == "unconfined" {
		p.Refuse = "SeccompProfile=unconfined: the container runs without a seccomp filter"
	}
	return p, true, nil
}

// composePointer reads a docker-compose file's services.*.security_opt
// entries "seccomp=FILE", "seccomp:FILE" or "seccomp=unconfined"
// (compose-spec: security_opt). All services naming one must name the
// same profile.
func composePointer(name string, data []byte) (*Pointer, bool, error) {
	var doc struct {
		Services map[string]struct {
			SecurityOpt []string `json:"security_opt"`
		} `json:"services"`
	}
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Services) == 0 {
		return nil, false, nil
	}
	found := map[string][]string{}
	for svc, s := range doc.Services {
		for _, o := range s.SecurityOpt {
			if v, ok := strings.CutPrefix(o, "seccomp"); ok && (strings.HasPrefix(v, "=") || strings.HasPrefix(v, ":")) {
				found[v[1:]] = append(found[v[1:]], svc)
			}
		}
	}
	return onePointer(name, "docker-compose", "service", found)
}

// onePointer returns the pointer of the one target in found (target →
// the services or containers naming it), or an error naming them all.
func onePointer(name, format, what string, found map[string][]string) (*Pointer, bool, error) {
	if len(found) == 0 {
		return nil, false, nil
	}
	var targets []string
	for t, who := range found {
		sort.Strings(who)
		targets = append(targets, fmt.Sprintf("%s (%s)", t, strings.TrimSpace(what+" "+strings.Join(who, ", "))))
	}
	sort.Strings(targets)
	if len(found) > 1 {
		return nil, true, fmt.Errorf("open filter %q: a %s file: %w: %w: different profiles: %s; load the one you mean by its path", name, format, ErrPointer, ErrAlternatives, strings.Join(targets, "; "))
	}
	for t, who := range found {
		p := &Pointer{Format: format, Target: t, Where: strings.TrimSpace(what + " " + strings.Join(who, ", "))}
		if t == "unconfined" {
			p.Refuse = "seccomp=unconfined: the container runs without a seccomp filter"
		}
		return p, true, nil
	}
	return nil, false, nil
}

// kubePointer reads the securityContext.seccompProfile of a Kubernetes
// workload (Pod, Deployment, ...): Localhost (localhostProfile, relative
// to the kubelet's seccomp directory, or to root), RuntimeDefault
// (modeled as docker-default), Unconfined (refused).
func kubePointer(name string, data []byte, root string) (*Pointer, bool, error) {
	found := map[string][]string{}
	notes := map[string]string{}
	for i, d := range bytes.Split(data, []byte("\n---")) {
		var v any
		if yaml.Unmarshal(d, &v) != nil {
			continue
		}
		kind, _ := mapOf(v)["kind"].(string)
		walkSeccomp(v, "", func(path string, sp map[string]any) {
			where := fmt.Sprintf("seccompProfile of %s (document %d) %s", kind, i+1, path)
			switch t, _ := sp["type"].(string); t {
			case "Localhost":
				lp, _ := sp["localhostProfile"].(string)
				dir := kubeletSeccompDir
				if root != "" {
					dir = root
				}
				found[filepath.Join(dir, lp)] = append(found[filepath.Join(dir, lp)], where)
			case "RuntimeDefault":
				found[oci.DockerDefaultName] = append(found[oci.DockerDefaultName], where)
				notes[oci.DockerDefaultName] = "RuntimeDefault is the container runtime's own default profile; it is modeled as Docker's (containerd and CRI-O ship profiles close to it)"
			case "Unconfined":
				found["unconfined"] = append(found["unconfined"], where)
			}
		})
	}
	p, ok, err := onePointer(name, "kubernetes-workload", "", found)
	if p != nil {
		p.Note, p.Resolved = notes[p.Target], true
		if p.Target == "unconfined" {
			p.Refuse = "seccompProfile type Unconfined: the container runs without a seccomp filter"
		}
	}
	return p, ok, err
}

// mapOf returns v as a map, or nil.
func mapOf(v any) map[string]any { m, _ := v.(map[string]any); return m }

// walkSeccomp calls f for every seccompProfile object under v, with its
// path ("spec.template.spec.containers[0].securityContext").
func walkSeccomp(v any, path string, f func(string, map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sp := mapOf(t[k]); k == "seccompProfile" && sp != nil {
				f(path, sp)
				continue
			}
			walkSeccomp(t[k], strings.TrimPrefix(path+"."+k, "."), f)
		}
	case []any:
		for i, e := range t {
			walkSeccomp(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}
