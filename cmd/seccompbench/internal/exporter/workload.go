// Package exporter is `seccompbench top --serve`: it turns each window
// `top` measures (document.Top) into Prometheus metrics per target group
// (a cgroup, named by its Kubernetes pod and container or its systemd
// unit), per node and for the exporter's own cost, and serves them in
// the OpenMetrics text format (prometheus/client_golang). It reads
// windows through the Windower interface and never touches sampling or
// attribution.
package exporter

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// Workload is what a cgroup path says about the workload in it.
type Workload struct {
	// Cgroup is the cgroup v2 path, as in /proc/PID/cgroup ("/" for the
	// root; "" when unknown).
	Cgroup string
	// PodUID and ContainerID are set for a Kubernetes container's
	// cgroup under either kubelet cgroup driver; PodUID has dashes.
	PodUID      string
	ContainerID string
	// Unit is the systemd unit of a system.slice/*.service cgroup (or any
	// *.service leaf outside kubepods).
	Unit string
}

var (
	// cgroupfs driver: .../kubepods/[burstable|besteffort/]pod<uid>/<cid>
	podDir = regexp.MustCompile(`^pod([0-9a-fA-F]{8}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{12})$`)
	// systemd driver: kubepods[-burstable|-besteffort]-pod<uid_>.slice
	podSlice = regexp.MustCompile(`^kubepods(?:-[a-z]+)?-pod([0-9a-fA-F_]{36})\.slice$`)
	// container leaf: <cid>, or cri-containerd-/crio-/docker-<cid>.scope
	cidLeaf = regexp.MustCompile(`^(?:(?:cri-containerd|crio|docker)-)?([0-9a-f]{64})(?:\.scope)?$`)
)

// ParseCgroup names the workload of cgroup path p: the pod UID and
// container ID of a kubelet cgroup (cgroupfs driver
// kubepods/burstable/pod<uid>/<cid>, systemd driver
// kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<cid>.scope,
// also crio- and docker- scopes), or the systemd unit of a *.service
// cgroup. Anything else keeps only Cgroup.
func ParseCgroup(p string) Workload {
	w := Workload{Cgroup: p}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range parts {
		var uid string
		if m := podDir.FindStringSubmatch(s); m != nil {
			uid = m[1]
		} else if m := podSlice.FindStringSubmatch(s); m != nil {
			uid = m[1]
		}
		if uid == "" {
			continue
		}
		w.PodUID = strings.ReplaceAll(uid, "_", "-")
		if i+1 < len(parts) {
			if m := cidLeaf.FindStringSubmatch(parts[i+1]); m != nil {
				w.ContainerID = m[1]
			}
		}
		return w
	}
	if leaf := path.Base(p); strings.HasSuffix(leaf, ".service") {
		w.Unit = leaf
	}
	return w
}

// ReadCgroup returns the cgroup v2 path of process pid: the "0::" line of
// /proc/PID/cgroup (kernel/cgroup/cgroup.c: proc_cgroup_show). Errors
// name the file; a file without a v2 line is an error too.
func ReadCgroup(pid int) (string, error) {
	f := fmt.Sprintf("/proc/%d/cgroup", pid)
	data, err := os.ReadFile(f)
	if err != nil {
		return "", err
	}
	return parseProcCgroup(f, data)
}

func parseProcCgroup(name string, data []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no cgroup v2 line (\"0::PATH\"); the exporter needs the unified hierarchy", name)
}
