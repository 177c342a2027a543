// Command image builds the seccompbench container image without a
// container daemon: it cross-compiles the static binary (CGO_ENABLED=0)
// for each platform, puts it on an empty base with /tmp and an
// entrypoint, and writes a multi-platform OCI image index with
// github.com/google/go-containerregistry.
//
//	go run ./internal/image                          # ./seccompbench-image/ and .tar
//	go run ./internal/image -o DIR -archive FILE.tar -tag registry.example/seccompbench:v1
//
// DIR is an OCI image layout (image-spec image-layout.md): push it with
// `crane push DIR REF` or `skopeo copy oci:DIR docker://REF`. FILE.tar is
// the same layout as one tar file (an "oci-archive"), which
// `ctr image import`, `podman load` and `docker load` (25 and later) read;
// its index carries the tag as io.containerd.image.name and
// org.opencontainers.image.ref.name.
//
// The image: one layer holding /seccompbench (0755) and /tmp (1777, for
// the CPU lock directory and temporary files when nothing is mounted
// there), every timestamp the Unix epoch, so the same commit and Go
// toolchain give the same digests; entrypoint /seccompbench; default
// arguments `run default -q --format json` (one JSON result on stdout);
// TMPDIR=/tmp; user 65534:65534 (nobody: the measurement needs no
// privilege). It prints the index digest and, per platform, the manifest
// digest and the compressed layer size.
//
// Exit status: 0 on success, 1 on a failure, 2 on bad flags.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// options are the command's flags.
type options struct {
	out       string   // OCI layout directory
	archive   string   // the layout as a tar file ("" for none)
	tag       string   // image reference recorded in the index
	platforms []string // GOARCH values
}

func main() {
	os.Exit(mainRun(os.Args[1:], os.Stdout, os.Stderr))
}

func mainRun(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "image:", err)
		return 2
	}
	if err := build(o, stdout); err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.out, "o", "seccompbench-image", "write the OCI image layout to `DIR` (replaced if it exists)")
	fs.StringVar(&o.archive, "archive", "seccompbench-image.tar", "also write the layout as one tar `FILE` for ctr image import / podman load (\"\" for none)")
	fs.StringVar(&o.tag, "tag", "docker.io/library/seccompbench:dev", "image `REF` recorded in the index")
	plats := fs.String("platforms", "amd64,arm64", "comma-separated linux GOARCH values to build")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, p := range strings.Split(*plats, ",") {
		if p = strings.TrimSpace(strings.TrimPrefix(p, "linux/")); p != "" {
			o.platforms = append(o.platforms, p)
		}
	}
	if len(o.platforms) == 0 || o.out == "" {
		return nil, errors.New("need -o and at least one platform")
	}
	return o, nil
}

// Config is the image configuration every platform shares.
var Config = v1.Config{
	Entrypoint: []string{"/seccompbench"},
	Cmd:        []string{"run", "default", "-q", "--format", "json"},
	Env:        []string{"TMPDIR=/tmp"},
	User:       "65534:65534",
	WorkingDir: "/",
	Labels: map[string]string{
		"org.opencontainers.image.title":       "seccompbench",
		"org.opencontainers.image.description": "measures what seccomp filters cost",
	},
}

// epoch is every timestamp in the image.
var epoch = time.Unix(0, 0).UTC()

// build writes the index for o.platforms.
func build(o *options, stdout io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "seccompbench-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var all []built
	for _, arch := range o.platforms {
		img, b, err := buildPlatform(root, work, arch)
		if err != nil {
			return err
		}
		all = append(all, b)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add: img,
			Descriptor: v1.Descriptor{
				Platform: &v1.Platform{OS: "linux", Architecture: arch},
			},
		})
	}
	if err := writeLayout(o, idx); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: OCI image layout, index %s (%s)\n", o.out, d, o.tag)
	for _, b := range all {
		fmt.Fprintf(stdout, "  linux/%s: manifest %s, layer %d bytes compressed (binary %d bytes)\n", b.arch, b.manifest, b.layer, b.binary)
	}
	if o.archive != "" {
		if err := tarDir(o.out, o.archive); err != nil {
			return fmt.Errorf("write %s: %w", o.archive, err)
		}
		st, err := os.Stat(o.archive)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: the layout as an oci-archive, %d bytes\n", o.archive, st.Size())
	}
	return nil
}

// built is what build reports of one platform's image.
type built struct {
	arch     string
	manifest v1.Hash // the platform manifest's digest
	layer    int64   // compressed layer size, bytes
	binary   int64   // the binary's size, bytes
}

// buildPlatform cross-compiles the binary for linux/arch from the module
// at root into directory work and returns its image and what build
// reports of it.
func buildPlatform(root, work, arch string) (v1.Image, built, error) {
	bin := filepath.Join(work, "seccompbench-"+arch)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/seccompbench")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, built{}, fmt.Errorf("go build for %s: %w\n%s", arch, err, out)
	}
	img, err := platformImage(bin, arch)
	if err != nil {
		return nil, built{}, fmt.Errorf("image for %s: %w", arch, err)
	}
	d, err := img.Digest()
	if err != nil {
		return nil, built{}, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, built{}, err
	}
	size, err := layers[0].Size()
	if err != nil {
		return nil, built{}, err
	}
	st, err := os.Stat(bin)
	if err != nil {
		return nil, built{}, err
	}
	return img, built{arch, d, size, st.Size()}, nil
}

// writeLayout replaces directory o.out with an OCI image layout holding
// idx, annotated with o.tag (io.containerd.image.name) and its tag part
// (org.opencontainers.image.ref.name).
func writeLayout(o *options, idx v1.ImageIndex) error {
	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	p, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout %s: %w", o.out, err)
	}
	tagName := o.tag
	if i := strings.LastIndexAny(tagName, ":@"); i > strings.LastIndex(tagName, "/") {
		tagName = tagName[i+1:]
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          o.tag,
		"org.opencontainers.image.ref.name": tagName,
	})); err != nil {
		return fmt.Errorf("write layout %s: %w", o.out, err)
	}
	return nil
}

// platformImage returns the image for one platform: binary bin as
// /seccompbench plus /tmp, on an empty base, with Config.
func platformImage(bin, arch string) (v1.Image, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777},
		{Name: "seccompbench", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(data))},
	} {
		h.ModTime, h.Format = epoch, tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: epoch}, CreatedBy: "go run ./internal/image", Comment: "static seccompbench binary and /tmp",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: epoch}
	cf.Config = Config
	return mutate.ConfigFile(img, cf)
}

// tarDir writes the files under dir into a tar file at path, names
// relative to dir, in walk order, every timestamp the epoch.
func tarDir(dir, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname = filepath.ToSlash(rel), epoch, 0, 0, "", ""
		h.Format = tar.FormatPAX
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module: run from the repository")
	}
	return filepath.Dir(mod), nil
}
