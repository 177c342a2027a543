package main

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/runner/container"
)

// The image check (part of -runtimes): the image `go run
// ./internal/image` builds runs under crun the way a node's kubelet and
// runtime start deploy/job.yaml's pod: the image's layers unpacked as the
// root file system (read-only), its entrypoint with the Job's kind of
// arguments, its user, NODE_NAME from the "downward API" and an emptyDir
// on /tmp, the runtime's default profile (RuntimeDefault: Docker's
// profile), no capabilities and no_new_privs (allowPrivilegeEscalation:
// false). The guest prints the container's standard output between
// resultBegin and resultEnd; the host feeds it to `seccompbench report`.

// imageNode is the node name the image check passes as NODE_NAME.
const imageNode = "vm-node-1"

// Markers around the image container's output on the console.
const (
	resultBegin = "VMTEST:RESULT-BEGIN"
	resultEnd   = "VMTEST:RESULT-END"
)

// imageArgs are the container's arguments after the entrypoint: the Job's
// command with fewer trials (software emulation; only the pipeline is
// checked, never a figure).
var imageArgs = []string{"run", "docker-default", "--workload", "getpid", "--filters", "0,1,2", "--trials", "3", "-q", "--format", "json"}

// addImageBundle builds the amd64 image into work, unpacks it into fs
// under /vmtest/image/rootfs and writes /vmtest/image/config.json.
// It returns the image manifest's digest.
func addImageBundle(ctx context.Context, fs *initramfs, root, work string, seccomp *specs.LinuxSeccomp) (string, error) {
	dir := filepath.Join(work, "image")
	cmd := exec.CommandContext(ctx, "go", "run", "./internal/image", "-platforms", "amd64", "-o", dir, "-archive", "")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go run ./internal/image: %w\n%s", err, out)
	}
	img, err := amd64Image(dir)
	if err != nil {
		return "", err
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	layers, err := img.Layers()
	if err != nil {
		return "", err
	}
	const rootfs = "/vmtest/image/rootfs"
	fs.Dir(rootfs)
	for _, d := range []string{"proc", "dev"} {
		fs.Dir(rootfs + "/" + d)
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			return "", err
		}
		err = untarInto(fs, rootfs, rc)
		rc.Close()
		if err != nil {
			return "", fmt.Errorf("unpack layer: %w", err)
		}
	}
	var uid, gid uint32
	if _, err := fmt.Sscanf(cf.Config.User, "%d:%d", &uid, &gid); err != nil {
		return "", fmt.Errorf("image user %q is not UID:GID", cf.Config.User)
	}
	spec := container.NewConfig(rootfs, append(append([]string{}, cf.Config.Entrypoint...), imageArgs...), []string{}, seccomp)
	spec.Process.Env = append(append([]string{}, cf.Config.Env...), "NODE_NAME="+imageNode)
	spec.Process.User = specs.User{UID: uid, GID: gid}
	spec.Process.Capabilities = &specs.LinuxCapabilities{}
	spec.Hostname = "seccompbench-pod"
	spec.Mounts = append(spec.Mounts, specs.Mount{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "nodev", "mode=1777", "size=65536k"}})
	b, err := json.MarshalIndent(spec, "", "\t")
	if err != nil {
		return "", err
	}
	fs.File("vmtest/image/config.json", b, 0o644)
	return digest.String(), nil
}

// amd64Image returns the linux/amd64 image of the OCI layout at dir,
// looking through nested indexes.
func amd64Image(dir string) (v1.Image, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	for depth := 0; depth < 4; depth++ {
		im, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		var next v1.ImageIndex
		for _, d := range im.Manifests {
			switch {
			case d.MediaType.IsIndex():
				if next, err = idx.ImageIndex(d.Digest); err != nil {
					return nil, err
				}
			case d.MediaType.IsImage() && d.Platform != nil && d.Platform.Architecture == "amd64":
				return idx.Image(d.Digest)
			}
		}
		if next == nil {
			break
		}
		idx = next
	}
	return nil, errors.New("no linux/amd64 image in the layout")
}

// untarInto adds a layer's directories and regular files to fs under dst.
func untarInto(fs *initramfs, dst string, r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean("/" + h.Name)
		if strings.Contains(path.Base(name), ".wh.") {
			continue // whiteouts: nothing to delete in a first layer
		}
		target := strings.TrimPrefix(dst+name, "/")
		switch h.Typeflag {
		case tar.TypeDir:
			fs.Dir(target)
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			fs.File(target, b, uint32(h.Mode)&0o7777)
		}
	}
}

// imageResult returns the image container's output from a console log:
// the lines between resultBegin and resultEnd, carriage returns dropped.
func imageResult(log []byte) ([]byte, bool) {
	s := strings.ReplaceAll(string(log), "\r", "")
	i := strings.Index(s, resultBegin+"\n")
	if i < 0 {
		return nil, false
	}
	s = s[i+len(resultBegin)+1:]
	j := strings.Index(s, resultEnd)
	if j < 0 {
		return nil, false
	}
	return []byte(s[:j]), true
}
