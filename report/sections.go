package report

import "github.com/seccompbench/seccompbench/report/document"

// runSection is one section of a run report with its renderer in each
// text format. compare, report and estimate go one step further with
// section (blocks.go): a section states its content once, as blocks,
// and one renderer per format lays every block out. One list, runSections, feeds WriteText and WriteMarkdown
// in its order, so a section is added to both at once; nil marks a format
// that leaves the section out, or shows its content in another section.
// The text's default output is the headline, the table and the warnings;
// a section marked explain is text only with --explain (TextOptions), so
// the default answers first and nothing is lost, only moved.
type runSection struct {
	name     string
	table    func(ew *errWriter, d *document.Document)
	markdown func(ew *errWriter, d *document.Document)
	// explain: in text, only with TextOptions.Explain.
	explain bool
}

// runSections are the sections of a run report, in order: the answer
// (headline), the data (results), then the explanation.
var runSections = []runSection{
	{"title", nil, mdHeader, false},
	{"headline", tableHeadline, mdHeadline, false},
	{"results", tableResults, mdResults, false},
	{"stack", tableStack, mdStack, false},
	{"directives", tableDirectives, mdDirectives, false},
	{"method", tableHeader, nil, true}, // markdown: in "environment" and "configuration"
	{"meaning", nil, mdMeaning, true},  // text: in "notes"
	{"model", tableModel, mdModel, true},
	{"cache", tableCache, mdCache, true},
	{"command", commandText, nil, true}, // markdown: in "configuration" and "results"
	{"setup", tableSetup, mdSetup, true},
	{"environment", nil, mdEnvironment, true}, // text: in "method"
	{"configuration", nil, mdConfiguration, true},
	{"reproduce", nil, mdReproduce, true},
	{"notes", tableNotes, nil, true}, // markdown: in "meaning"
	{"warnings", tableWarnings, mdWarnings, false},
}
