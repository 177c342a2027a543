package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// probeUnit is the unit systemd starts in the systemd-as-init VM: every
// directive below makes systemd 252 install seccomp filters, none needs a
// mount namespace or a real root file system.
const probeUnit = `[Unit]
Description=seccompbench VM probe: a daemon under systemd's filters
DefaultDependencies=no

[Service]
Type=simple
ExecStart=/vmtest/probe-daemon
NoNewPrivileges=yes
ProtectHostname=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallFilter=~reboot:EACCES
SystemCallErrorNumber=EPERM
SystemCallLog=@obsolete
`

// variantUnit covers what probeUnit and the host's units leave out:
// DynamicUser= (which implies RestrictSUIDSGID=), a RestrictNamespaces=
// list (setns by flag) that retains CLONE_NEWTIME, a
// RestrictAddressFamilies= deny list, SystemCallArchitectures= keeping x86
// (so the later directives install x86 filters too), Personality=,
// a SystemCallLog= deny list, SystemCallFilter= deny lists with the
// default action (kill) and a per-call errno, and the directives that need
// a mount namespace (ProtectKernelTunables=, PrivateDevices=, ...).
const variantUnit = `[Unit]
Description=seccompbench VM probe: the directives and forms probe.service leaves out
DefaultDependencies=no

[Service]
Type=simple
ExecStart=/vmtest/` + variantComm + `
DynamicUser=yes
RestrictNamespaces=net time
RestrictAddressFamilies=~AF_PACKET AF_NETLINK
MemoryDenyWriteExecute=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectClock=yes
PrivateDevices=yes
SystemCallArchitectures=native x86
Personality=x86-64
LockPersonality=yes
SystemCallLog=~@basic-io @io-event @signal @timer
SystemCallFilter=~@mount @swap @reboot @raw-io
SystemCallFilter=~mincore:ENOSYS
`

// variantComm is variantUnit's daemon.
const variantComm = "variant-probe"

// allowUnit covers an allow list whose default action is kill (no
// SystemCallErrorNumber=) with a ~name:errno exception and a deny line
// merged in, SystemCallLog= as a list, RestrictNamespaces= inverted,
// RestrictAddressFamilies=none and SystemCallArchitectures= keeping x32
// (so the later directives install x32 filters too).
const allowUnit = `[Unit]
Description=seccompbench VM probe: an allow list that kills, and x32 kept
DefaultDependencies=no

[Service]
Type=simple
ExecStart=/vmtest/` + allowComm + `
NoNewPrivileges=yes
RestrictNamespaces=~user mnt
RestrictAddressFamilies=none
MemoryDenyWriteExecute=yes
RestrictRealtime=yes
SystemCallArchitectures=x86-64 x32
LockPersonality=yes
SystemCallFilter=@system-service @clock
SystemCallFilter=~@resources
SystemCallFilter=~write:EROFS
SystemCallLog=@privileged
`

// allowComm is allowUnit's daemon.
const allowComm = "allow-probe"

// plusUnit runs its command with the "+" prefix: systemd applies no
// sandboxing to it (src/core/execute.c: exec_child, needs_sandboxing), so
// none of its hardening directives may install a filter.
const plusUnit = `[Unit]
Description=seccompbench VM probe: ExecStart=+ installs no filters
DefaultDependencies=no

[Service]
Type=simple
ExecStart=+/vmtest/` + plusComm + `
NoNewPrivileges=yes
RestrictNamespaces=yes
RestrictSUIDSGID=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
`

// plusComm is plusUnit's daemon.
const plusComm = "plus-probe"

// probeComm is the probe unit's daemon, as /vmtest/probe-daemon runs it.
const probeComm = "probe-daemon"

// checkUnit returns the unit that compares each of units (VM unit name
// and its daemon's comm) with the model once they run; opts go before
// them (vminit's parseCheckArgs). It only Wants=
// them: a unit that does not start is reported as a failure of its own
// test, not as a check that never ran.
func checkUnit(opts []string, units [][2]string) string {
	var names []string
	args := append([]string(nil), opts...)
	for _, u := range units {
		names = append(names, u[0])
		args = append(args, u[0]+"="+u[1])
	}
	return `[Unit]
Description=seccompbench VM check: compare the units' filters with the model
After=` + strings.Join(names, " ") + `
Wants=` + strings.Join(names, " ") + `
DefaultDependencies=no

[Service]
Type=oneshot
ExecStart=/vmtest/init systemd-check ` + strings.Join(args, " ") + `
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
`
}

const vmtestTarget = `[Unit]
Description=seccompbench VM test
Requires=check.service
After=check.service
AllowIsolate=yes
DefaultDependencies=no
`

// vmUsers are /etc/passwd and /etc/group of the VM: root, nobody and the
// system users the real units name in User= (Debian 12's sysusers
// entries; the IDs are the VM's own).
const (
	vmPasswd = "root:x:0:0:root:/root:/bin/sh\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" +
		"systemd-network:x:998:998:systemd Network Management:/:/usr/sbin/nologin\n" +
		"systemd-timesync:x:997:997:systemd Time Synchronization:/:/usr/sbin/nologin\n"
	vmGroup = "root:x:0:\nnogroup:x:65534:\nsystemd-network:x:998:\nsystemd-timesync:x:997:\n"
)

// runSystemd boots k (an amd64 kernel) with a systemd as PID 1
// (rdinit=/usr/lib/systemd/systemd), probe.service and a VM copy of each
// realUnit that systemd's packages ship (deriveUnit), whose filters
// check.service reads back with `seccompbench inspect` and compares with
// `seccompbench compile --systemd-stack --systemd-version N --compiler
// libseccomp`, unit by unit, N being the booted systemd's major version.
// seccompbench is built with -tags libseccomp, so it lays filters out
// with the same libseccomp systemd links.
//
// Without -systemd-root that systemd is the host's: it, seccompbench and
// their shared libraries come from the host, which must be Debian
// bookworm with systemd 252 and libseccomp-dev. With -systemd-root (or
// -systemd-suite) it is the systemd of that Debian root, whose files make
// up the initramfs (addRoot): its systemd, its units, its users and its
// libraries, trixie's libseccomp 2.6.0 among them, which the host-built
// seccompbench then links at run time too. Each unit is also compared,
// for the record, with the model laid out by the host's libseccomp
// (copied to /vmtest/host-libseccomp) and by the native compiler.
func runSystemd(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "vmtest: "+format+"\n", a...) }
	repo, k, work, err := hostToolsVM(o, "-systemd", "the systemd it boots is x86_64")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	r := row{kernel: k}
	start := time.Now()
	r.err = func() error {
		sys, err := systemdSource(ctx, o, logf)
		if err != nil {
			return err
		}
		logf("systemd from the %s", sys.describe())
		vmlinuz, pkg, err := fetchWithPackage(ctx, o.cacheDir, k, logf)
		if err != nil {
			return err
		}
		r.pkg = pkg
		initBin, sb, err := guestTools(ctx, repo, work, logf)
		if err != nil {
			return err
		}
		fs := newInitramfs()
		var checkArgs []string
		if o.systemdRoot == "" {
			if err := addHostSystemd(ctx, fs, systemdPath, sb); err != nil {
				return err
			}
		} else {
			if checkArgs, err = addRootSystemd(ctx, fs, sys, sb); err != nil {
				return err
			}
		}
		for _, d := range []string{"proc", "sys", "dev", "run", "tmp", "root", "var/tmp"} {
			fs.Dir(d)
		}
		fs.CharDev("dev/console", 5, 1)
		for dst, src := range map[string]string{"vmtest/init": initBin, "vmtest/" + probeComm: initBin} {
			if err := fs.Copy(dst, src); err != nil {
				return err
			}
		}
		units, err := addUnits(fs, initBin, sys.unitDir(), logf)
		if err != nil {
			return err
		}
		checkArgs = append([]string{"-systemd-version", fmt.Sprint(sys.SystemdMajor())}, checkArgs...)
		fs.File("etc/systemd/system/probe.service", []byte(probeUnit), 0o644)
		fs.File("etc/systemd/system/check.service", []byte(checkUnit(checkArgs, units)), 0o644)
		fs.File("etc/systemd/system/vmtest.target", []byte(vmtestTarget), 0o644)
		initrd := filepath.Join(work, "initramfs.cpio")
		if err := writeInitrd(fs, initrd); err != nil {
			return err
		}
		mem := o.memMB
		if o.systemdRoot != "" && mem < rootMemMB {
			logf("guest memory %d MiB instead of -mem %d: the root's initramfs is unpacked into RAM", rootMemMB, mem)
			mem = rootMemMB
		}
		// loglevel=4: the kernel's audit lines for SystemCallLog= (type
		// 1326, KERN_NOTICE) stay off the console, where they would land
		// in the middle of the check's marker and result lines.
		g := guest{arch: k.Arch, kernel: vmlinuz, initrd: initrd, memMB: mem, cpus: o.cpus,
			cmdline: "console=ttyS0 loglevel=4 panic=-1 rdinit=" + systemdPath + " systemd.unit=vmtest.target systemd.show_status=0 systemd.log_level=warning systemd.crash_reboot=1 systemd.log_target=console"}
		start = time.Now()
		return bootChecked(ctx, o, g, &r, sys.logName(), logf)
	}()
	r.wall = time.Since(start)
	if r.res != nil {
		logf("systemd on %s: %s", k.Name, r.res.Summary())
		if b, err := os.ReadFile(r.logPath); err == nil {
			for _, l := range unitSummaries(b) {
				logf("%s", l)
			}
		}
	}
	return []row{r}, r.err
}

// systemdPath is where systemd's PID 1 binary is, on the host and in a
// Debian root alike.
const systemdPath = "/usr/lib/systemd/systemd"

// rootMemMB is the least guest memory for a -systemd-root boot (MiB):
// the kernel unpacks the root's initramfs (about 150 MB) into RAM.
const rootMemMB = 2048

// systemdSource says where -systemd's systemd comes from: o.systemdRoot
// (built with debootstrap for o.systemdSuite when needed), or the host
// ("/", its versions from its dpkg status).
func systemdSource(ctx context.Context, o *options, logf func(string, ...any)) (debianRoot, error) {
	if o.systemdRoot != "" {
		return prepareRoot(ctx, o.systemdRoot, o.systemdSuite, logf)
	}
	r, err := prepareRoot(ctx, "/", "", logf)
	r.Dir = ""
	return r, err
}

// unitDir is where r's systemd units are: the host's hostUnitDir, or the
// root's usr/lib/systemd/system.
func (r debianRoot) unitDir() string {
	if r.Dir == "" {
		return hostUnitDir
	}
	return rootUnitDir(r.Dir)
}

// logName names the console log: "systemd" for the host's systemd,
// "systemd-SUITE" (or "systemd-root") for a root's.
func (r debianRoot) logName() string {
	switch {
	case r.Dir == "":
		return "systemd"
	case r.Suite != "":
		return "systemd-" + r.Suite
	}
	return "systemd-root"
}

// addRootSystemd adds the Debian root r (addRoot) and the seccompbench
// binary sb to fs, sb without libraries: it runs on the root's glibc and
// libseccomp. The host's libseccomp goes to /vmtest/host-libseccomp for
// the second comparison. It returns the check's options for those
// further models.
func addRootSystemd(ctx context.Context, fs *initramfs, r debianRoot, sb string) ([]string, error) {
	if err := addRoot(fs, r.Dir); err != nil {
		return nil, err
	}
	if err := fs.Copy("vmtest/seccompbench", sb); err != nil {
		return nil, err
	}
	fs.File("etc/machine-id", nil, 0o444)
	libs, err := sharedLibs(ctx, sb)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, l := range libs {
		if filepath.Base(l) == "libseccomp.so.2" {
			if err := fs.Copy("vmtest/host-libseccomp/libseccomp.so.2", l); err != nil {
				return nil, err
			}
			label := "host-libseccomp"
			if v := hostPackageVersion("libseccomp2"); v != "" {
				label += "-" + v
			}
			args = append(args, "-alt-lib", label+"=/vmtest/host-libseccomp")
		}
	}
	return append(args, "-alt-native", "native"), nil
}

// hostPackageVersion returns the host's installed version of Debian
// package pkg, or "".
func hostPackageVersion(pkg string) string {
	f, err := os.Open("/var/lib/dpkg/status")
	if err != nil {
		return ""
	}
	defer f.Close()
	v, _ := dpkgVersions(f, "/var/lib/dpkg/status", []string{pkg})
	return v[pkg]
}

// addUnits adds to fs the probe, variant, allowlist and privileged units
// and the VM copy of each realUnit in unitDir (deriveUnit; a unit that
// is not there is logged and skipped), each with a copy of the probe
// initBin under its COMM in /vmtest. It returns the units check.service
// compares, as (unit, COMM) pairs.
func addUnits(fs *initramfs, initBin, unitDir string, logf func(string, ...any)) ([][2]string, error) {
	units := [][2]string{{"probe.service", probeComm}}
	for _, p := range []struct{ name, text, comm string }{
		{"variant.service", variantUnit, variantComm},
		{"allowlist.service", allowUnit, allowComm},
		{"privileged.service", plusUnit, plusComm},
	} {
		fs.File("etc/systemd/system/"+p.name, []byte(p.text), 0o644)
		if err := fs.Copy("vmtest/"+p.comm, initBin); err != nil {
			return nil, err
		}
		units = append(units, [2]string{p.name, p.comm})
	}
	for _, u := range realUnits {
		data, err := os.ReadFile(filepath.Join(unitDir, u.Name))
		if err != nil {
			logf("%s: not checked: %v", u.Name, err)
			continue
		}
		text, changes, err := deriveUnit(u, unitDir, data)
		if err != nil {
			return nil, err
		}
		logf("%s -> %s:", u.Name, u.vmName())
		for _, c := range changes {
			logf("  %s", c)
		}
		fs.File("etc/systemd/system/"+u.vmName(), []byte(text), 0o644)
		if err := fs.Copy("vmtest/"+u.Comm, initBin); err != nil {
			return nil, err
		}
		units = append(units, [2]string{u.vmName(), u.Comm})
	}
	return units, nil
}

// addHostSystemd adds to fs the host's systemd binary (at path systemd)
// and seccompbench binary sb with their shared libraries, the host's
// os-release, an empty machine-id and the VM's passwd and group files.
func addHostSystemd(ctx context.Context, fs *initramfs, systemd, sb string) error {
	if err := copyWithLibs(ctx, fs, systemd); err != nil {
		return fmt.Errorf("no systemd on this host: %w", err)
	}
	if err := copyWithLibs(ctx, fs, sb); err != nil {
		return err
	}
	if err := fs.Copy("vmtest/seccompbench", sb); err != nil {
		return err
	}
	if err := fs.Copy("usr/lib/os-release", "/usr/lib/os-release"); err != nil {
		return err
	}
	fs.File("etc/machine-id", nil, 0o444)
	fs.File("etc/passwd", []byte(vmPasswd), 0o644)
	fs.File("etc/group", []byte(vmGroup), 0o644)
	return nil
}

var lddLine = regexp.MustCompile(`(/\S+) \(0x`)

// sharedLibs returns the absolute paths of bin's shared libraries and
// dynamic loader, as ldd reports them.
func sharedLibs(ctx context.Context, bin string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", bin, err)
	}
	var libs []string
	for _, m := range lddLine.FindAllStringSubmatch(string(out), -1) {
		libs = append(libs, m[1])
	}
	return libs, nil
}

// unitSummaries returns the guest's per-unit verdict lines ("UNIT: N of M
// filters byte-identical ..." and "UNIT: no ... process") from a console
// log.
func unitSummaries(log []byte) []string {
	var out []string
	for _, l := range strings.Split(string(log), "\n") {
		l = strings.TrimSpace(strings.TrimRight(l, "\r"))
		if i := strings.Index(l, summaryTag); i >= 0 {
			out = append(out, strings.TrimSpace(l[i+len(summaryTag):]))
		}
	}
	return out
}

// summaryTag starts the guest's per-unit verdict line
// (vminit/systemd.go prints the same text).
const summaryTag = "unit verdict:"
