package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/internal/vmtest/protocol"
	"github.com/seccompbench/seccompbench/runner/container"
)

// The runtimes check (go run ./internal/vmtest -runtimes): the host's runc
// and crun (Debian 12: runc 1.1.5, crun 1.8.1) start containers from OCI
// bundles this file writes, inside a guest whose /init mounts a clean
// cgroup2 hierarchy; the guest reads each container's filters back with
// `seccompbench inspect --save` and compares them with `seccompbench
// compile --compiler libseccomp --runtime R` of the same config.json
// (vminit/runtimes.go).

// runtimeProfile is one seccomp profile the check runs containers under.
type runtimeProfile struct {
	// Name names the bundle (/vmtest/bundles/NAME) and the tests.
	Name string
	// Source is the profile: oci.DockerDefaultName or a file under
	// internal/vmtest/testdata/runtimes.
	Source string
	// Caps is the container's capability set (bounding, effective,
	// permitted), which also resolves the profile's includes/excludes.
	Caps []string
}

// podmanCaps is Podman 4.3's default capability set (containers/common
// v0.50 pkg/config/default.go: DefaultCapabilities).
var podmanCaps = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
	"CAP_SETUID", "CAP_SYS_CHROOT",
}

// runtimeProfiles are the profiles of the check, in the order the guest
// starts them. args-errno differs from args in one rule's errnoRet only:
// crun built with libgcrypt caches compiled filters under a checksum of
// the profile (src/libcrun/seccomp.c: calculate_seccomp_checksum) that
// leaves errnoRet out, so such a crun, having compiled args, would
// install args' filter for args-errno. Debian 12's crun has no such cache
// (it installs args-errno's own filter); the pair guards the check on
// builds that have it.
var runtimeProfiles = []runtimeProfile{
	{Name: "docker-default", Source: oci.DockerDefaultName, Caps: oci.DockerDefaultCaps},
	{Name: "podman", Source: "podman-4.3-seccomp.json", Caps: podmanCaps},
	{Name: "args", Source: "args-rules.json", Caps: oci.DockerDefaultCaps},
	{Name: "args-errno", Source: "args-rules-errno.json", Caps: oci.DockerDefaultCaps},
}

// runtimeBinaries are the runtimes the check runs, as the host installs
// them (apt-get install runc crun).
var runtimeBinaries = []string{"/usr/sbin/runc", "/usr/bin/crun"}

// containerComm is the container process's name: vminit copied into the
// bundles' root file system, where its "-probe" suffix makes it sleep.
const containerComm = "container-probe"

// bundleConfig returns the OCI runtime config.json of a bundle that runs
// /container-probe from rootfs under seccomp, as Docker and Podman
// write it for a default container: no no_new_privs (neither sets it
// unless asked), caps as bounding, effective and permitted set, its own
// PID, IPC, UTS, mount and network namespaces, root in the guest's
// initramfs.
func bundleConfig(rootfs string, caps []string, seccomp *specs.LinuxSeccomp) ([]byte, error) {
	spec := container.NewConfig(rootfs, []string{"/" + containerComm}, caps, seccomp)
	spec.Root.Readonly = false
	spec.Process.NoNewPrivileges = false
	spec.Hostname = "probe"
	return json.MarshalIndent(spec, "", "\t")
}

// resolveProfile resolves a profile for an amd64 container with caps as
// Docker does (moby/profiles/seccomp LoadProfile: archMap for the host,
// includes/excludes on caps, arches and minKernel against the running
// kernel, which for these profiles' one minKernel, 4.8, is any kernel the
// matrix boots). Podman resolves with containers/common instead, which
// differs in ignoring minKernel; the Podman profile has none.
func resolveProfile(root string, p runtimeProfile) (*specs.LinuxSeccomp, error) {
	var body []byte
	if p.Source == oci.DockerDefaultName {
		b, err := oci.DockerDefaultJSON()
		if err != nil {
			return nil, err
		}
		body = b
	} else {
		b, err := os.ReadFile(filepath.Join(root, "internal/vmtest/testdata/runtimes", p.Source))
		if err != nil {
			return nil, err
		}
		body = b
	}
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: p.Caps}}}
	sc, err := mobyseccomp.LoadProfile(string(body), rs)
	if err != nil {
		return nil, fmt.Errorf("resolve profile %s: %w", p.Source, err)
	}
	return sc, nil
}

// addRuntimeBundles adds the rootfs, one bundle per profile and the
// runtimes (binaries and shared libraries) to fs; sb is the guest's
// seccompbench, whose shared libraries the rootfs gets too (it is the
// timer inside the in-container check's containers).
func addRuntimeBundles(ctx context.Context, fs *initramfs, root, initBin, sb string) error {
	const rootfs = "/vmtest/rootfs"
	if err := fs.Copy(rootfs+"/"+containerComm, initBin); err != nil {
		return err
	}
	for _, d := range []string{"proc", "dev", "tmp", "sys"} {
		fs.Dir(rootfs + "/" + d)
	}
	for _, p := range runtimeProfiles {
		sc, err := resolveProfile(root, p)
		if err != nil {
			return err
		}
		cfg, err := bundleConfig(rootfs, p.Caps, sc)
		if err != nil {
			return err
		}
		fs.File("vmtest/bundles/"+p.Name+"/config.json", cfg, 0o644)
	}
	for _, bin := range runtimeBinaries {
		if err := copyWithLibs(ctx, fs, bin); err != nil {
			return fmt.Errorf("%w (install it: apt-get install runc crun)", err)
		}
	}
	return addInContainer(ctx, fs, rootfs, sb)
}

// copyWithLibs copies bin and its shared libraries (ldd) to the same
// paths in fs.
func copyWithLibs(ctx context.Context, fs *initramfs, bin string) error {
	if err := fs.Copy(bin, bin); err != nil {
		return err
	}
	libs, err := sharedLibs(ctx, bin)
	if err != nil {
		return err
	}
	for _, l := range libs {
		if err := fs.Copy(l, l); err != nil {
			return err
		}
	}
	return nil
}

// guestTools builds /init (static) and seccompbench with -tags libseccomp
// (cgo: it lays filters out with the same libseccomp runc, crun and
// systemd link) for amd64 into work and returns their paths.
func guestTools(ctx context.Context, root, work string, logf func(string, ...any)) (initBin, sb string, err error) {
	build := func(env []string, args ...string) error {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	logf("building vminit and seccompbench (-tags libseccomp)")
	initBin = filepath.Join(work, "init")
	if err := build([]string{"CGO_ENABLED=0", "GOARCH=amd64"}, "build", "-o", initBin, "./internal/vmtest/vminit"); err != nil {
		return "", "", err
	}
	sb = filepath.Join(work, "seccompbench")
	if err := build([]string{"CGO_ENABLED=1", "GOARCH=amd64"}, "build", "-tags", "libseccomp", "-o", sb, "./cmd/seccompbench"); err != nil {
		return "", "", err
	}
	return initBin, sb, nil
}

// writeInitrd writes fs to path.
func writeInitrd(fs *initramfs, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := fs.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bootChecked boots g, logging to CACHE/logs/NAME-KERNEL.log, and fills
// r's boot outcome, log path and results.
func bootChecked(ctx context.Context, o *options, g guest, r *row, name string, logf func(string, ...any)) error {
	if err := os.MkdirAll(o.logDir, 0o755); err != nil {
		return err
	}
	r.logPath = filepath.Join(o.logDir, name+"-"+r.kernel.Name+".log")
	logf("kernel %s: booting the %s check (-accel %s; log: %s)", r.kernel.Name, name, o.accel, r.logPath)
	var bootErr error
	r.boot, bootErr = bootGuest(ctx, g, o.accel, o.timeout, r.logPath, logf)
	var err error
	if r.res, err = parseLog(r.logPath); err != nil {
		return err
	}
	if bootErr == nil && !r.res.Done {
		bootErr = noDoneError(r.logPath)
	}
	return bootErr
}

// runRuntimes boots the first -kernels kernel (amd64) with vminit as
// /init and one step, `init runtimes-check`, which starts a runc and a
// crun container per runtimeProfiles bundle and compares the filters
// each installed with the model. runc, crun, seccompbench and their
// shared libraries come from the host (Debian bookworm: runc 1.1.5, crun
// 1.8.1, libseccomp 2.5.4).
func runRuntimes(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "vmtest: "+format+"\n", a...) }
	root, k, work, err := hostToolsVM(o, "-runtimes", "the host's runc and crun are x86_64")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	r := row{kernel: k}
	start := time.Now()
	r.err = func() error {
		vmlinuz, pkg, err := fetchWithPackage(ctx, o.cacheDir, k, logf)
		if err != nil {
			return err
		}
		r.pkg = pkg
		initBin, sb, err := guestTools(ctx, root, work, logf)
		if err != nil {
			return err
		}
		initrd, err := runtimesInitrd(ctx, o, root, work, initBin, sb, logf)
		if err != nil {
			return err
		}
		g := guest{arch: k.Arch, kernel: vmlinuz, initrd: initrd, memMB: o.memMB, cpus: o.cpus,
			cmdline: "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init"}
		start = time.Now()
		return bootChecked(ctx, o, g, &r, "runtimes", logf)
	}()
	r.wall = time.Since(start)
	if r.res != nil {
		logf("runtimes on %s: %s", k.Name, r.res.Summary())
		if b, err := os.ReadFile(r.logPath); err == nil {
			for _, l := range unitSummaries(b) {
				logf("%s", l)
			}
			if r.err == nil {
				r.err = reportImageResult(ctx, root, o.logDir, b, logf)
			}
		}
	}
	return []row{r}, r.err
}

// runtimesInitrd packs the runtimes guest's initramfs into work: /init,
// seccompbench with its libraries, the runtime bundles, the image bundle
// under RuntimeDefault, and the plan of three steps (runtimes-check, the
// in-container timing, image-run). It returns the archive's path.
func runtimesInitrd(ctx context.Context, o *options, root, work, initBin, sb string, logf func(string, ...any)) (string, error) {
	fs := newInitramfs()
	for _, d := range []string{"proc", "sys", "dev", "run", "tmp"} {
		fs.Dir(d)
	}
	fs.CharDev("dev/console", 5, 1)
	if err := fs.Copy("init", initBin); err != nil {
		return "", err
	}
	if err := fs.Copy("vmtest/init", initBin); err != nil {
		return "", err
	}
	if err := fs.Copy("vmtest/seccompbench", sb); err != nil {
		return "", err
	}
	if err := copyWithLibs(ctx, fs, sb); err != nil {
		return "", err
	}
	if err := addRuntimeBundles(ctx, fs, root, initBin, sb); err != nil {
		return "", err
	}
	// RuntimeDefault for a pod whose capabilities are all dropped.
	rd, err := resolveProfile(root, runtimeProfile{Source: oci.DockerDefaultName, Caps: []string{}})
	if err != nil {
		return "", err
	}
	digest, err := addImageBundle(ctx, fs, root, work, rd)
	if err != nil {
		return "", err
	}
	logf("image linux/amd64 %s unpacked for crun", digest)
	var args []string
	for _, bin := range runtimeBinaries {
		for _, p := range runtimeProfiles {
			args = append(args, bin+"="+p.Name)
		}
	}
	plan := protocol.Plan{Steps: []protocol.Step{{
		Name: "runtimes", Path: "/vmtest/init", Args: append([]string{"runtimes-check"}, args...),
		TimeoutSeconds: int((o.timeout - time.Minute).Seconds()),
	}, inContainerStep(4 * 60), {
		Name: "image", Path: "/vmtest/init", Args: []string{"image-run", "/usr/bin/crun", "/vmtest/image", imageNode},
		TimeoutSeconds: int((o.timeout - time.Minute).Seconds()),
	}}}
	pj, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return "", err
	}
	fs.File(protocol.PlanPath, pj, 0o644)
	initrd := filepath.Join(work, "initramfs.cpio")
	return initrd, writeInitrd(fs, initrd)
}

// reportImageResult feeds the image container's output, from the console
// log, to `seccompbench report`, as a fleet's kubectl logs would be, and
// logs the table. The result is kept as LOGS/image-result.json.
func reportImageResult(ctx context.Context, root, logDir string, log []byte, logf func(string, ...any)) error {
	res, ok := imageResult(log)
	if !ok {
		return errors.New("image check: no container output on the console")
	}
	out := filepath.Join(logDir, "image-result.json")
	if err := os.WriteFile(out, res, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/seccompbench", "report", out)
	cmd.Dir = root
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("image check: seccompbench report %s: %w\n%s", out, err, b)
	}
	logf("seccompbench report %s (TCG: the figures mean nothing, the pipeline is what ran):\n%s", out, b)
	return nil
}
