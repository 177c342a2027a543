package jsoncontract

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
)

// Text lists, per kind, the keys whose string values are English text on
// purpose, each with the reason a user needs the text in the JSON rather
// than a code (docs/json.md, "Codes, not sentences"). A key is a dotted
// path from the document's root; "[]" stands for every element of an
// array and "*" for every value of an object. Every other string of a
// JSON output is a code, a name or a number's text: Sentences reports
// one of four or more words elsewhere, and Generate writes the reason
// into the key's schema description.
var Text = map[document.Kind]map[string]string{
	document.KindRun: {
		"command":                                 whyCommand,
		"environment.vulnerabilities":             whyKernelText,
		"environment.cpu_model":                   whyKernelText,
		"config.op":                               whyOp,
		"config.loader_reason":                    "why the loader was chosen, naming the capability or kernel fact that decided it; a diagnostic with no code yet",
		"cache.[].syscalls.[].reason":             whyCacheReason,
		"command_workload.prepare":                "the --prepare command line as the user gave it",
		"config.policies.[].path":                 whyPolicy,
		"config.directives.list.[].other_effects": "what a systemd directive does outside seccomp (systemd.exec(5)): the reason a directive whose filters are redundant must not be removed blindly; fixed text per directive",
		"config.directives.list.[].witness":       "the input (ABI, syscall, arguments) on which the stack's outcome changes without the directive, or why the equivalence checker stopped; equiv's own counterexample text",
		"run.foreign_load.other_runs.[].argv":     whyOtherRun,
	},
	document.KindCompare: {
		"sources.[].cpu_model": whyKernelText,
		"sources.[].policies":  whyPolicy,
	},
	document.KindReport: {
		"groups.[].op":                  whyOp,
		"groups.[].rows.[].cpu_model":   whyKernelText,
		"groups.[].rows.[].mitigations": whyKernelText,
	},
	document.KindEstimate: {
		"validation.syscalls.[].workload":            whyOp,
		"syscalls.[].cache_reason":                   whyCacheReason,
		"model.source":                               "the calibration's provenance: the run files and fits the model was taken from, named as the user gave them",
		"model.measured_on":                          "the kernel release and the CPU model the calibration ran on, the kernel's own text",
		"model.points.[].source":                     "where the calibration point was measured: the run file and its workload, or the calibration filter, as the user named them",
		"validation.direct.unavailable":              whyError,
		"validation.foreign_load.other_runs.[].argv": whyOtherRun,
		"profile.source":                             "the profile's name: the file the user gave, or, when estimate --command profiled the command itself, \"strace of `COMMAND` (not kept)\": the command line, since the strace summary is removed when estimate ends",
	},
	document.KindSimulate: {
		"syscalls.[].cache_reason":                 whyCacheReason,
		"alternatives.[].syscalls.[].cache_reason": whyCacheReason,
	},
	document.KindInspect: {
		"processes.[].error":            whyError,
		"processes.[].groups.[].disasm": whyDisasm,
		"processes.[].cmdline":          "the process's own command line, from /proc/PID/cmdline",
	},
	document.KindCompile: {
		"program.[].text":    whyDisasm,
		"program.[].comment": whyDisasm,
	},
	document.KindLint: {
		"findings.[].message": "the finding's message, which editors, CI annotations and other tools print verbatim beside the code (the same text as lint's text output)",
		"findings.[].hint":    "how to fix the finding, printed verbatim by tools beside the message",
	},
	document.KindManifest: {
		"cmdline": "the process's own command line, from /proc/PID/cmdline",
	},
	document.KindEquiv: {
		"outside_seccomp.[].other_effects": "what a systemd directive does outside seccomp (systemd.exec(5)), so the reader sees what differs beyond the filters the verdict is about; fixed text per directive",
		"outside_seccomp.[].a":             "a unit setting's value as the unit file writes it (paths, capability lists, command lines)",
		"outside_seccomp.[].b":             "a unit setting's value as the unit file writes it (paths, capability lists, command lines)",
	},
	document.KindTop: {
		"processes.[].filters_error": whyError,
	},
}

// whyOtherRun: another seccompbench run's command line, any words its
// user gave (a command workload's shell line, too).
const whyOtherRun = "another seccompbench run's command line, read from /proc/PID/cmdline, as its user wrote it"

// buildText is the Text of merge, optimize and intersect, which share
// their Go type (document.BuildSummary).
var buildText = map[string]string{
	"program.[].text":             whyDisasm,
	"program.[].comment":          whyDisasm,
	"cache_lost.[].Reason":        whyCacheReason,
	"cache_gained.[].Reason":      whyCacheReason,
	"longer.[].Reason":            whyCacheReason,
	"cost.intersect_error":        whyError,
	"oci.inexpressible.[].reason": "why a rule of the stack has no OCI form, naming the rule's operator and argument; the OCI writer's diagnostic, with no code yet",
}

func init() {
	for _, k := range []document.Kind{document.KindMerge, document.KindOptimize, document.KindIntersect} {
		Text[k] = buildText
	}
	Text[document.KindSubset] = map[string]string{"cost.intersect_error": whyError}
}

// Reasons shared by several keys.
const (
	whyCommand     = "the command line as it was typed"
	whyKernelText  = "the kernel's own text (/proc/cpuinfo, /sys/devices/system/cpu/vulnerabilities), copied as the kernel wrote it"
	whyOp          = "what one op of the workload is, from the workload table: the description a reader needs to interpret the nanoseconds"
	whyCacheReason = "the action-cache emulator's explanation, naming the filter, line and instruction that made the syscall uncacheable; the text is the finding itself"
	whyError       = "an error message (from the kernel, or from building the merged filter), kept verbatim because its wording is the only record of what failed"
	whyDisasm      = "the filter's disassembly (or the disassembler's comment on an instruction), which is data, not wording"
	whyPolicy      = "the policy's name: the file the user gave, or for a stack modeled or dumped by this tool what it was taken from (e.g. a systemd unit's stack, a process's filter), as every report names it"
	whyWarnings    = "diagnostics from many producers that a user needs as they are, whose conditions have no codes yet"
)

// isWarnings reports whether path is an element of a warnings or notes
// array: diagnostics every kind may carry (whyWarnings).
func isWarnings(path string) bool {
	return strings.HasSuffix(path, "warnings.[]") || strings.HasSuffix(path, "notes.[]")
}

// allowed reports whether the string at path (with "[]" for array
// elements) of a document of kind k may be text: path or one of its
// prefixes (a key holding an array or object of text) is in Text[k], or
// it is a warning.
func allowed(k document.Kind, path string) bool {
	if isWarnings(path) {
		return true
	}
	for p := path; p != ""; {
		if _, ok := Text[k][p]; ok {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// Sentences returns the string values of data, a JSON document of kind
// k, that read as English (four or more words) under a key Text does not
// allow, each as "path: value". An error says data is not JSON.
func Sentences(k document.Kind, data []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("sentences in %s document: %w", k, err)
	}
	var out []string
	walkStrings(v, "", func(path, s string) {
		if len(strings.Fields(s)) >= 4 && !allowed(k, path) {
			out = append(out, path+": "+s)
		}
	})
	slices.Sort(out)
	return out, nil
}

// walkStrings calls f with the path and value of every string in v.
func walkStrings(v any, path string, f func(path, s string)) {
	join := func(seg string) string { return strings.TrimPrefix(path+"."+seg, ".") }
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			seg := k
			if path == "environment.vulnerabilities" {
				seg = "*"
			}
			walkStrings(x[k], join(seg), f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, join("[]"), f)
		}
	case string:
		f(path, x)
	}
}

// describeText writes the reason of every key Text allows for kind k into
// that key's description in the schema tree (root, with its $defs), after
// any description it has. A key that the schema does not have is an
// error: the list must name real keys.
func describeText(k document.Kind, root, defs map[string]any) error {
	for _, path := range slices.Sorted(maps.Keys(Text[k])) {
		node, err := schemaNode(root, defs, strings.Split(path, "."))
		if err != nil {
			return fmt.Errorf("text key %q of kind %s: %w", path, k, err)
		}
		d, _ := node["description"].(string)
		node["description"] = strings.TrimSpace(d + " Text, not a code: " + Text[k][path] + " (docs/json.md).")
	}
	return nil
}

// schemaNode returns the schema of the key at the path segs below node,
// following $ref and anyOf; "[]" steps into an array's items, "*" into
// an object's values.
func schemaNode(node, defs map[string]any, segs []string) (map[string]any, error) {
	if len(segs) == 0 {
		return node, nil
	}
	n := resolve(node, defs, segs[0])
	var next map[string]any
	switch segs[0] {
	case "[]":
		next, _ = n["items"].(map[string]any)
	case "*":
		next, _ = n["additionalProperties"].(map[string]any)
	default:
		props, _ := n["properties"].(map[string]any)
		next, _ = props[segs[0]].(map[string]any)
	}
	if next == nil {
		return nil, fmt.Errorf("no key %q in the schema", segs[0])
	}
	return schemaNode(next, defs, segs[1:])
}

// resolve follows node's $ref, or the branch of its anyOf, to the schema
// that holds what seg steps into (properties, items or
// additionalProperties).
func resolve(node, defs map[string]any, seg string) map[string]any {
	want := "properties"
	switch seg {
	case "[]":
		want = "items"
	case "*":
		want = "additionalProperties"
	}
	for range 8 {
		if _, ok := node[want]; ok {
			return node
		}
		if ref, ok := node["$ref"].(string); ok {
			def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			if def == nil {
				return node
			}
			node = def
			continue
		}
		branches, _ := node["anyOf"].([]any)
		found := false
		for _, b := range branches {
			if m, ok := b.(map[string]any); ok && m["type"] != "null" {
				node, found = m, true
				break
			}
		}
		if !found {
			return node
		}
	}
	return node
}

// describeWarnings writes whyWarnings into the description of every
// "warnings" and "notes" key below node (the root and its $defs).
func describeWarnings(node any) {
	switch x := node.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for _, name := range []string{"warnings", "notes"} {
				if p, ok := props[name].(map[string]any); ok {
					d, _ := p["description"].(string)
					p["description"] = strings.TrimSpace(d + " Text, not a code: " + whyWarnings + " (docs/json.md).")
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			describeWarnings(x[k])
		}
	case []any:
		for _, e := range x {
			describeWarnings(e)
		}
	}
}
