package srcpos

import (
	"errors"
	"strings"
	"testing"
)

func TestParseJSONPositions(t *testing.T) {
	data := []byte("{\n  \"vmm\": {\"default_action\": \"trap\",\n    \"filter\": [1, true, null]}\n}\n")
	n, err := ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	vmm := n.Get("vmm")
	for _, tt := range []struct {
		name string
		got  Pos
		want Pos
	}{
		{"key vmm", n.KeyAt[0], Pos{Line: 2, Col: 3}},
		{"vmm", vmm.At, Pos{Line: 2, Col: 10}},
		{"default_action", vmm.Get("default_action").At, Pos{Line: 2, Col: 29}},
		{"filter[1]", vmm.Get("filter").Vals[1].At, Pos{Line: 3, Col: 19}},
	} {
		if tt.got != tt.want {
			t.Errorf("%s at %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
	if k := vmm.Get("filter").Vals[2].Kind; k != Null || k.JSONName() != "null" {
		t.Errorf("kind %v", k)
	}
}

func TestParseYAMLPositions(t *testing.T) {
	docs, err := ParseYAML([]byte("# c\nkind: SeccompProfile\nspec:\n  syscalls:\n    - names: [read]\n      action: SCMP_ACT_ALLOW\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("%d documents, want 1", len(docs))
	}
	sc := docs[0].Get("spec").Get("syscalls").Vals[0]
	if got := sc.Get("action").At; got != (Pos{Line: 6, Col: 15}) {
		t.Errorf("action at %+v", got)
	}
	if got := sc.Get("names").Vals[0]; got.Str != "read" || got.Kind.YAMLName() != "str" || got.At != (Pos{Line: 5, Col: 15}) {
		t.Errorf("names[0] = %+v", got)
	}
}

func TestErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		json bool
		src  string
		want string
		at   Pos
	}{
		{"json syntax", true, "{\n  \"a\": [1,,]\n}", "parse JSON: invalid character ','", Pos{Line: 2, Col: 11}},
		{"json duplicate", true, "{\"a\": 1,\n \"a\": 2}", `duplicate key "a"`, Pos{Line: 2, Col: 2}},
		{"json trailing", true, "{}\n{}", "data after the top-level value", Pos{Line: 2, Col: 1}},
		{"json deep", true, strings.Repeat("[", 70) + strings.Repeat("]", 70), "nests deeper than 64 levels", Pos{Line: 1, Col: 65}},
		{"yaml duplicate", false, "a: 1\nb: 2\na: 3\n", `mapping key "a" already defined`, Pos{Line: 3, Col: 1}},
		{"yaml alias", false, "a: &x 1\nb: *x\n", "aliases are not supported", Pos{Line: 2, Col: 4}},
		{"yaml deep", false, "a: " + strings.Repeat("[", 70), "nested more than 64 levels deep", Pos{Line: 1, Col: 68}},
		{"yaml syntax", false, "a: [1, 2\n", "parse YAML:", Pos{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.json {
				_, err = ParseJSON([]byte(tt.src))
			} else {
				_, err = ParseYAML([]byte(tt.src))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is no *Error", err)
			}
			if !strings.Contains(e.Msg, tt.want) {
				t.Errorf("message %q, want %q", e.Msg, tt.want)
			}
			if tt.at != (Pos{}) && e.At != tt.at {
				t.Errorf("at %+v, want %+v", e.At, tt.at)
			}
		})
	}
}

func TestJSONValueOffset(t *testing.T) {
	data := []byte(`{"syscalls": [{"names": ["read"], "action": "SCMP_ACT_BOGUS"}], "x": `)
	if got := JSONValueOffset(data, "syscalls", 0, "action"); got != strings.Index(string(data), `"SCMP_ACT_BOGUS"`) {
		t.Errorf("offset %d", got)
	}
	if got := JSONValueOffset(data, "nope"); got != -1 {
		t.Errorf("offset of a missing path %d, want -1", got)
	}
}
