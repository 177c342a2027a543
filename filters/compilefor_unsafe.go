package filters

import (
	"fmt"
	"reflect"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	elarch "github.com/elastic/go-seccomp-bpf/arch"
)

// setSeccompArch makes github.com/elastic/go-seccomp-bpf assemble sp for
// info instead of runtime.GOARCH. v1.6.0 keeps the target in the
// unexported field Policy.arch and fills it from runtime.GOARCH only when
// it is nil (filter.go: Policy.Assemble); SyscallGroup.arch follows it.
// This is what Beats built for that GOARCH would compile. It returns an
// error wrapping ErrUnknownArch if a future version has no such field.
func setSeccompArch(sp *seccomp.Policy, info *elarch.Info) error {
	f := reflect.ValueOf(sp).Elem().FieldByName("arch")
	if !f.IsValid() || f.Type() != reflect.TypeOf(info) {
		return fmt.Errorf("set go-seccomp-bpf target arch %s: %w (no Policy.arch field in this version)", info.Name, ErrUnknownArch)
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(info))
	return nil
}
