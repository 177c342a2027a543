package srcpos

import (
	"bytes"
	"testing"
)

// checkTree fails when a node's position lies outside data (goccy/go-yaml
// also counts a lone carriage return as a line break).
func checkTree(t *testing.T, data []byte, n *Node) {
	lines := bytes.Count(data, []byte{'\n'}) + bytes.Count(data, []byte{'\r'}) + 1
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.At.Line < 0 || n.At.Line > lines || n.At.Col < 0 {
			t.Fatalf("position %+v outside %d lines", n.At, lines)
		}
		if len(n.Keys) != len(n.KeyAt) || n.Kind == Map && len(n.Keys) != len(n.Vals) {
			t.Fatalf("map with %d keys, %d positions, %d values", len(n.Keys), len(n.KeyAt), len(n.Vals))
		}
		for _, v := range n.Vals {
			walk(v)
		}
	}
	walk(n)
}

// FuzzParse: neither reader panics, every position lies inside the data,
// and every error is an *Error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"vmm": {"default_action": "trap", "filter": [{"syscall": "read"}]}}`))
	f.Add([]byte("kind: SeccompProfile\nspec:\n  syscalls:\n    - names: [read]\n"))
	f.Add([]byte("seccomp:\n  default_action: errno\n  syscalls:\n  - names: [read]\n    action: allow\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, err := ParseJSON(data); err == nil {
			checkTree(t, data, n)
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("ParseJSON error %T %v", err, err)
		}
		docs, err := ParseYAML(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("ParseYAML error %T %v", err, err)
			}
			return
		}
		for _, d := range docs {
			checkTree(t, data, d)
		}
	})
}
