package document

// OCIResolution is the "oci" object of JSON outputs: what resolved the
// includes/excludes (caps, minKernel, arches) of the OCI-based sources
// (OCI profiles, docker-default, Kubernetes, Firecracker, LXC, minijail),
// converted from filters/oci.Resolution by the commands.
// Outputs leave it out when no source is OCI-based.
type OCIResolution struct {
	// Caps is the capability set, CAP_* names.
	Caps []string `json:"caps"`
	// CapsDefault is true when --caps was not given (Docker's set).
	CapsDefault bool `json:"caps_default"`
	// KernelVersion is "major.minor".
	KernelVersion string `json:"kernel_version"`
	// KernelDefault is true when --kernel-version was not given.
	KernelDefault bool `json:"kernel_version_default"`
	// Arch is the host architecture, e.g. "x86_64".
	Arch string `json:"arch"`
	// Runtime is the OCI runtime whose installation is modeled: runc,
	// runc-1.1 or crun (--runtime).
	Runtime string `json:"runtime"`
	// Text says it in one line for text outputs.
	Text string `json:"-"`
}
