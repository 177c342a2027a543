package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// documents splits a multi-document YAML file.
func documents(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, d := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(stripComments(d))) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// stripComments drops whole-line YAML comments.
func stripComments(d []byte) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(string(d), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.Bytes()
}

// decodeStrict decodes one document into obj, failing on unknown or
// duplicate fields (sigs.k8s.io/yaml UnmarshalStrict: the API server's
// strict field validation).
func decodeStrict(t *testing.T, doc []byte, obj any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, doc)
	}
}

// TestManifestsDecodeStrictly decodes every manifest under deploy/ with
// the Kubernetes API types of its kind.
func TestManifestsDecodeStrictly(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		for i, doc := range documents(t, f) {
			var meta struct {
				Kind string `json:"kind"`
			}
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			switch meta.Kind {
			case "Namespace":
				decodeStrict(t, doc, &corev1.Namespace{})
			case "Job":
				decodeStrict(t, doc, &batchv1.Job{})
			case "ConfigMap":
				decodeStrict(t, doc, &corev1.ConfigMap{})
			case "DaemonSet":
				decodeStrict(t, doc, &appsv1.DaemonSet{})
			case "Service":
				decodeStrict(t, doc, &corev1.Service{})
			default:
				t.Errorf("%s document %d: kind %q has no decoder here", f, i, meta.Kind)
			}
		}
	}
}

// TestStrictDecodeCatchesTypos: a misspelt field fails, so the test
// above can fail.
func TestStrictDecodeCatchesTypos(t *testing.T) {
	doc := []byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 3\n")
	if err := yaml.UnmarshalStrict(doc, &batchv1.Job{}); err == nil {
		t.Fatal("a Job with spec.completion (for completions) decoded")
	}
}

// TestJobContract checks what docs/fleet.md promises of the Job: the node
// name from the downward API, a writable emptyDir on /tmp with TMPDIR
// pointing there, one JSON document on stdout, whole CPUs, and a pod that
// Pod Security "restricted" admits (no hostPath, no Unconfined seccomp,
// non-root, no capabilities, no privilege escalation).
func TestJobContract(t *testing.T) {
	var job batchv1.Job
	for _, doc := range documents(t, "job.yaml") {
		if bytes.Contains(doc, []byte("kind: Job")) {
			decodeStrict(t, doc, &job)
		}
	}
	pod := job.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (one result per pod)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["NODE_NAME"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("NODE_NAME is %+v, want the downward API's spec.nodeName", e)
	}
	if env["TMPDIR"].Value != "/tmp" {
		t.Errorf("TMPDIR is %q, want /tmp", env["TMPDIR"].Value)
	}
	if !slices.Contains(c.Args, "--format") || c.Args[slices.Index(c.Args, "--format")+1] != "json" || slices.Contains(c.Args, "-o") {
		t.Errorf("args %q: want --format json to stdout, no -o file", c.Args)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			t.Errorf("volume %s is a hostPath: Pod Security baseline refuses it", v.Name)
		}
		if v.EmptyDir != nil && mounts[v.Name] == "/tmp" {
			mounts["emptyDir"] = "/tmp"
		}
	}
	if mounts["emptyDir"] != "/tmp" {
		t.Errorf("no emptyDir on /tmp (mounts %v): the CPU lock directory needs a writable place", mounts)
	}
	req, lim := c.Resources.Requests[corev1.ResourceCPU], c.Resources.Limits[corev1.ResourceCPU]
	if req.Cmp(lim) != 0 || req.MilliValue()%1000 != 0 || req.IsZero() {
		t.Errorf("cpu requests %s, limits %s: want equal whole CPUs (Guaranteed QoS, for the static CPU manager)", req.String(), lim.String())
	}
	sc, psc := c.SecurityContext, pod.SecurityContext
	switch {
	case psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined:
		t.Error("pod seccompProfile missing or Unconfined: Pod Security restricted wants RuntimeDefault or Localhost")
	case psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot:
		t.Error("runAsNonRoot not set")
	case sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation not false")
	case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
		t.Error("capabilities not dropped")
	}
}

// TestDaemonSetContract checks what docs/fleet.md promises of the
// exporter's DaemonSet: hostPID, `top --all --serve` on the port the
// Service and the scrape annotations name, only the capabilities of
// docs/top.md "Permissions" after dropping ALL, no privilege, a
// read-only root, no hostPath, resource limits, and the node name.
func TestDaemonSetContract(t *testing.T) {
	var ds appsv1.DaemonSet
	var svc corev1.Service
	for _, doc := range documents(t, "daemonset.yaml") {
		switch {
		case bytes.Contains(doc, []byte("kind: DaemonSet")):
			decodeStrict(t, doc, &ds)
		case bytes.Contains(doc, []byte("kind: Service")):
			decodeStrict(t, doc, &svc)
		}
	}
	pod := ds.Spec.Template.Spec
	if !pod.HostPID {
		t.Error("hostPID not set: top --all sees only the pod's processes")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	a := c.Args
	i := slices.Index(a, "--serve")
	if len(a) < 2 || a[0] != "top" || !slices.Contains(a, "--all") || i < 0 || i+1 >= len(a) {
		t.Fatalf("args %q: want top --all --serve ADDR", a)
	}
	port := a[i+1][strings.LastIndex(a[i+1], ":")+1:]
	if len(c.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port {
		t.Errorf("container ports %+v, want %s", c.Ports, port)
	}
	if ann := ds.Spec.Template.Annotations; ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != port || ann["prometheus.io/path"] != "/metrics" {
		t.Errorf("pod annotations %v: want prometheus.io/scrape, port %s, path /metrics", ann, port)
	}
	if len(svc.Spec.Ports) != 1 || strconv.Itoa(int(svc.Spec.Ports[0].Port)) != port || svc.Spec.Selector["app"] != ds.Spec.Template.Labels["app"] {
		t.Errorf("service %+v does not select the pods on %s", svc.Spec, port)
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "NODE_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
	}) {
		t.Error("NODE_NAME is not the downward API's spec.nodeName")
	}
	sc := c.SecurityContext
	switch {
	case sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Fatal("capabilities not dropped")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("privileged")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation not false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("root file system not read-only")
	}
	allowed := []corev1.Capability{"PERFMON", "BPF", "SYSLOG", "SYS_ADMIN", "SYS_PTRACE"}
	for _, cap := range sc.Capabilities.Add {
		if !slices.Contains(allowed, cap) {
			t.Errorf("capability %s: top needs only %v (docs/top.md, Permissions)", cap, allowed)
		}
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			t.Errorf("volume %s is a hostPath", v.Name)
		}
	}
	if c.Resources.Limits.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Error("no CPU and memory limits")
	}
}
