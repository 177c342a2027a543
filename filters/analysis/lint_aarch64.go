package analysis

import "github.com/seccompbench/seccompbench/filters"

// LintBypassARM is the finding code for syscalls a stack denies on aarch64
// but allows, under the same name, through the arm64 kernel's compat ABI
// (AArch32 tasks, AUDIT_ARCH_ARM).
const LintBypassARM = "abi-bypass-arm"

// lintForeignABI is one ABI Lint checks for bypasses, with its finding code.
type lintForeignABI struct {
	arch *filters.Arch
	code string
}

// lintForeign returns the foreign ABIs of native's kernel that Lint checks
// for bypasses: i386 and x32 for x86_64, arm for aarch64, none otherwise.
func lintForeign(native *filters.Arch) []lintForeignABI {
	switch native {
	case filters.ArchX86_64:
		return []lintForeignABI{{filters.ArchI386, LintBypassI386}, {filters.ArchX32, LintBypassX32}}
	case filters.ArchAArch64:
		return []lintForeignABI{{filters.ArchARM, LintBypassARM}}
	}
	return nil
}
