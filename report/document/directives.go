package document

// UnitDirectives is the unit author's answer for a run whose policy is a
// systemd unit (Config.Directives): per directive, the filters it
// installs and the syscalls it keeps out of the kernel's action cache
// (filters/analysis.PartCosts), whether the other directives already
// cover its filters, and what it does outside seccomp.
type UnitDirectives struct {
	// ABI is the ABI the syscall lists are for ("x86_64").
	ABI string `json:"abi"`
	// Directives are the unit's directives that install filters, in
	// install order.
	Directives []DirectiveCost `json:"list"`
	// Uncached are the syscalls the stack keeps out of the action cache
	// although no filter refuses them by number alone: the calls that can
	// succeed and run every filter.
	Uncached []string `json:"uncached_syscalls"`
	// Cached and Total count the ABI's named syscalls the kernel caches,
	// and all of them.
	Cached int `json:"cached"`
	Total  int `json:"total"`
}

// DirectiveCost is one directive's share of UnitDirectives.
type DirectiveCost struct {
	// Name is the directive, e.g. "MemoryDenyWriteExecute".
	Name string `json:"name"`
	// Filters are its filters' ABIs (systemd's names: "x86", "x32",
	// "x86_64", "all"), one per filter, oldest first; Instructions their
	// lengths in BPF instructions, index for index.
	Filters      []string `json:"filters"`
	Instructions []int    `json:"instructions"`
	// Uncached are the syscalls it keeps out of the action cache without
	// refusing them (argument checks, SECCOMP_RET_LOG); OnlyThis those the
	// cache would skip without it; Refused how many syscalls it refuses
	// by number alone.
	Uncached []string `json:"uncached_syscalls,omitempty"`
	OnlyThis []string `json:"cached_without,omitempty"`
	Refused  int      `json:"refused"`
	// Redundant is "yes" (the stack without its filters gives every input
	// the same outcome, proved by filters/equiv), "no" or "unknown".
	Redundant string `json:"redundant"`
	// Witness is, for "no", an input whose outcome changes without it;
	// for "unknown", why the checker stopped.
	Witness string `json:"witness,omitempty"`
	// OtherEffects is what it does outside seccomp (systemd.exec(5)), ""
	// for nothing.
	OtherEffects string `json:"other_effects,omitempty"`
}
