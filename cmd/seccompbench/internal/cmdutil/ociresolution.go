package cmdutil

import (
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/report/document"
)

// NewOCIResolution converts r to the "oci" object of JSON outputs; nil
// for nil. (report never imports filters/oci, whose profile model links
// golang.org/x/sys.)
func NewOCIResolution(r *oci.Resolution) *document.OCIResolution {
	if r == nil {
		return nil
	}
	return &document.OCIResolution{Caps: append([]string{}, r.Caps...), CapsDefault: r.DefaultCaps, KernelVersion: r.KernelVersion,
		KernelDefault: r.DefaultKernel, Arch: r.Arch, Runtime: string(r.Runtime), Text: r.String()}
}
