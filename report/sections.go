package report

// runSection is one section of a run report with its renderer in each
// text format. One list, runSections, feeds WriteTable and WriteMarkdown
// in its order, so a section is added to both at once; nil marks a format
// that leaves the section out, or shows its content in another section
// (the table is terse: the environment and configuration are lines of its
// header, what the numbers mean comes after them).
type runSection struct {
	name     string
	table    func(ew *errWriter, d *Document)
	markdown func(ew *errWriter, d *Document)
}

// runSections are the sections of a run report, in order.
var runSections = []runSection{
	{"header", tableHeader, mdHeader},
	{"meaning", nil, mdMeaning}, // table: in "notes"
	{"results", tableResults, mdResults},
	{"model", tableModel, mdModel},
	{"cache", tableCache, mdCache},
	{"command", commandText, nil}, // markdown: in "configuration" and "results"
	{"setup", tableSetup, mdSetup},
	{"environment", nil, mdEnvironment},     // table: in "header"
	{"configuration", nil, mdConfiguration}, // table: in "header"
	{"reproduce", nil, mdReproduce},
	{"notes", tableNotes, mdWarnings},
}
