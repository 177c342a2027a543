package systemd

import (
	"strings"
)

// SearchPath is the system manager's unit search path below a root
// directory, highest priority first (systemd.unit(5), "System Unit
// Search Path"; src/basic/path-lookup.c): a file or drop-in in an
// earlier directory masks one of the same name in a later one. lib/ is
// the unmerged-/usr spelling of usr/lib/.
var SearchPath = []string{"etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system", "lib/systemd/system"}

// DropInDirNames returns the names of the drop-in directories systemd
// reads for the unit named unit (a base name such as "foo-bar.service"),
// most specific first (systemd.unit(5), "drop-in directories";
// src/shared/dropin.c: unit_file_find_dropin_paths): the unit's own
// "foo-bar.service.d", for an instance "foo@x.service" its template's
// "foo@.service.d", then one per dash prefix ("foo-.service.d"), and the
// unit type's "service.d". Within one search-path directory a drop-in of
// a more specific directory masks one of the same file name in a less
// specific one. A name without a type suffix returns nil.
func DropInDirNames(unit string) []string {
	dot := strings.LastIndexByte(unit, '.')
	if dot <= 0 || dot == len(unit)-1 {
		return nil
	}
	stem, typ := unit[:dot], unit[dot:]
	names := []string{unit + ".d"}
	if at := strings.IndexByte(stem, '@'); at >= 0 && at < len(stem)-1 {
		names = append(names, stem[:at+1]+typ+".d")
		stem = stem[:at] // prefixes of the template's name
	}
	for i := len(stem) - 1; i > 0; i-- {
		if stem[i] == '-' && stem[i-1] != '-' {
			names = append(names, stem[:i+1]+typ+".d")
		}
	}
	return append(names, typ[1:]+".d")
}

// unitTypes are the unit type suffixes (systemd src/basic/unit-def.c:
// unit_type_table).
var unitTypes = map[string]bool{".service": true, ".socket": true, ".target": true, ".device": true, ".mount": true,
	".automount": true, ".swap": true, ".timer": true, ".path": true, ".slice": true, ".scope": true}

// IsUnitName reports whether the base name of p ends in a unit type's
// suffix (".service", ".socket", …) after a non-empty stem, as a unit
// file's name does.
func IsUnitName(p string) bool {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	dot := strings.LastIndexByte(p, '.')
	return dot > 0 && unitTypes[p[dot:]]
}
