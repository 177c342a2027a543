package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind names what a JSON document of seccompbench is: the command that
// wrote it. Every JSON output carries it beside schema_version
// (docs/json.md), so a reader can refuse a document of the wrong kind by
// name instead of reading it as something it is not.
type Kind string

// The kinds of JSON document, one per command that writes JSON, plus the
// manifest.json of a saved stack directory (inspect --save, compile
// --save). docs/json.md lists each with its schema in docs/schema/.
const (
	KindRun      Kind = "run"
	KindCompare  Kind = "compare"
	KindReport   Kind = "report"
	KindEstimate Kind = "estimate"
	KindSimulate Kind = "simulate"
	KindInspect  Kind = "inspect"
	KindCompile  Kind = "compile"
	// KindCompileStack is compile --systemd-stack's document: a modeled
	// stack, not one filter.
	KindCompileStack Kind = "compile-stack"
	KindLint         Kind = "lint"
	KindBudget       Kind = "budget"
	KindMerge        Kind = "merge"
	KindOptimize     Kind = "optimize"
	KindEquiv        Kind = "equiv"
	// KindSubset is `subset --format json`; KindIntersect is `intersect
	// --format json`, a BuildSummary with the cost.
	KindSubset    Kind = "subset"
	KindIntersect Kind = "intersect"
	KindManifest  Kind = "stack-manifest"
	// KindTop is `top --duration D --format json`: one sampled window.
	KindTop Kind = "top"
)

// Kinds lists every kind of JSON document, in the order of docs/json.md.
var Kinds = []Kind{KindRun, KindCompare, KindReport, KindEstimate, KindSimulate, KindInspect,
	KindCompile, KindCompileStack, KindLint, KindBudget, KindMerge, KindOptimize, KindEquiv, KindSubset, KindIntersect, KindManifest, KindTop}

// ContractVersion is the schema_version of every JSON document but the
// run result's (SchemaVersion, also 1 today): each kind's version moves
// on its own when a key changes meaning or goes away (docs/json.md,
// "Versions").
const ContractVersion = 1

// Schema versions of the kinds whose keys changed since ContractVersion
// (docs/json.md, "History"): budget's current_basis and top's prediction
// became codes in version 2.
const (
	BudgetVersion = 2
	TopVersion    = 3
)

// Version returns the schema_version that documents of kind k are
// written with today: SchemaVersion for run results, BudgetVersion,
// TopVersion and ManifestVersion for those kinds, ContractVersion for
// every other kind.
func (k Kind) Version() int {
	switch k {
	case KindRun:
		return SchemaVersion
	case KindBudget:
		return BudgetVersion
	case KindTop:
		return TopVersion
	case KindManifest:
		return ManifestVersion
	}
	return ContractVersion
}

// describe names k for people, e.g. "a compare document".
func (k Kind) describe() string {
	if k == KindRun {
		return "a run result"
	}
	if k == "" {
		return "a document of no known kind"
	}
	a := "a"
	if strings.ContainsAny(k.String()[:1], "aeiou") {
		a = "an"
	}
	return fmt.Sprintf("%s %s document", a, k)
}

// String returns the kind as written in JSON.
func (k Kind) String() string { return string(k) }

// ErrWrongKind is returned (wrapped in a *KindError) when a reader gets a
// JSON document of another kind than the one it reads, e.g. a compare
// document where a run result belongs. It is a usage error: exit code 2.
var ErrWrongKind = errors.New("wrong kind of document")

// KindError says which kind of document a reader got and which it wants.
// It unwraps to ErrWrongKind.
type KindError struct {
	// Got is the document's kind ("" when it has none and its shape is not
	// recognised); Want the kind the reader takes.
	Got, Want Kind
	// Legacy is the kind a document without "kind" was recognised as by its
	// shape (a file from before kinds existed), for the message.
	Legacy bool
}

// Error says what the document is and what was wanted, e.g. "a compare
// document, want a run result".
func (e *KindError) Error() string {
	got := e.Got.describe()
	if e.Legacy {
		got += " (no \"kind\"; recognised by its keys)"
	}
	if e.Got == "" {
		got = "not a seccompbench JSON document (no \"kind\", and its keys match none)"
	}
	return fmt.Sprintf("%s, want %s", got, e.Want.describe())
}

// Unwrap returns ErrWrongKind.
func (e *KindError) Unwrap() error { return ErrWrongKind }

// Header is what every JSON document of seccompbench starts with.
type Header struct {
	// SchemaVersion is the version of this kind's keys.
	SchemaVersion int `json:"schema_version"`
	// Kind names the document's kind (KindRun, ...).
	Kind Kind `json:"kind"`
}

// legacyKinds maps the kind names written before docs/json.md fixed them
// to today's.
var legacyKinds = map[string]Kind{"comparison": KindCompare, "seccompbench-report": KindReport}

// DetectKind reads the kind and schema_version of the JSON document data.
// A document without "kind", or with an empty one (written before kinds
// existed, or by a program that built the Go type itself), is recognised
// by its keys: a run result has "config" and "results", and so on; legacy
// is then true. kind is "" for JSON of no recognisable kind; err is set
// only when data is not JSON at all.
func DetectKind(data []byte) (kind Kind, version int, legacy bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		// lint and inspect wrote bare arrays before they had a kind.
		var arr []map[string]json.RawMessage
		if err := json.Unmarshal(data, &arr); err != nil {
			return "", 0, false, fmt.Errorf("decode json: %w", err)
		}
		if len(arr) > 0 {
			return shapeKind(arr[0]), 0, true, nil
		}
		return "", 0, true, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return "", 0, false, fmt.Errorf("decode json: %w", err)
	}
	if v, ok := top["schema_version"]; ok {
		_ = json.Unmarshal(v, &version)
	}
	if k, ok := top["kind"]; ok {
		var s string
		if json.Unmarshal(k, &s) == nil && s != "" {
			if lk, ok := legacyKinds[s]; ok {
				// An old spelling of a kind is a kind all the same.
				return lk, version, false, nil
			}
			return Kind(s), version, false, nil
		}
	}
	return shapeKind(top), version, true, nil
}

// shapeKind recognises a document without "kind" by its keys.
func shapeKind(top map[string]json.RawMessage) Kind {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := top[k]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("window_ns", "processes"):
		return KindTop
	case has("filters", "captured"):
		return KindManifest
	case has("config", "results"):
		return KindRun
	case has("stack_bytes", "fit"):
		return KindBudget
	case has("profile", "model", "total"):
		return KindEstimate
	case has("stack", "syscalls"):
		return KindSimulate
	case has("severity", "code"):
		return KindLint
	case has("pid", "seccomp_mode"):
		return KindInspect
	case has("program", "ebpf_instructions"):
		return KindCompile
	case has("unit", "directives"):
		return KindCompileStack
	case has("instructions_before", "equivalent"):
		return KindMerge
	}
	return ""
}

// CheckKind returns a *KindError unless data is a document of kind want.
// A run result without "kind" but with schema_version 1 and a run result's
// keys is accepted (files from before kinds existed; docs/json.md).
func CheckKind(data []byte, want Kind) error {
	got, _, legacy, err := DetectKind(data)
	if err != nil {
		return err
	}
	if got == want {
		return nil
	}
	return &KindError{Got: got, Want: want, Legacy: legacy && got != ""}
}
