package analysis

import "github.com/seccompbench/seccompbench/filters"

// FilterGroup is a set of identical filters of a stack: same bytes, so same
// SHA-256. A service manager that installs one filter per directive and per
// architecture (systemd does) or a runtime that re-installs its policy in
// every child produces such repeats.
type FilterGroup struct {
	// SHA256 is the hex SHA-256 of the filter's bytes (Program.SHA256).
	SHA256 string
	// Instructions is the filter's length, in instructions.
	Instructions int
	// Indexes are the stack indexes holding this filter, ascending (0 =
	// oldest).
	Indexes []int
}

// GroupFilters groups the stack's filters by content hash, in order of
// first appearance (oldest first).
func GroupFilters(s filters.Stack) []FilterGroup {
	var out []FilterGroup
	at := map[string]int{}
	for i, p := range s {
		h := p.SHA256()
		k, ok := at[h]
		if !ok {
			k = len(out)
			at[h] = k
			out = append(out, FilterGroup{SHA256: h, Instructions: p.Len()})
		}
		out[k].Indexes = append(out[k].Indexes, i)
	}
	return out
}
