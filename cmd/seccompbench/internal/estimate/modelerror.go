package estimate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/stats"
)

// validationColumns are the columns ReadValidationRows needs, by header
// name; indirect_ms may be left out (rows predicted without the indirect
// part: 0).
var validationColumns = []string{"program", "stack", "cache", "syscalls_ms", "process_ms", "predicted_ms",
	"stated_lo_ms", "stated_hi_ms", "used_model_error", "measured_ms", "measured_lo_ms", "measured_hi_ms"}

// ErrValidationRows is returned (wrapped) by ReadValidationRows for a
// file that is not a validation table.
var ErrValidationRows = errors.New("validation rows")

// ReadValidationRows reads the whole-program validation table (the
// format of testdata/validation-programs.csv): `#` comment lines, a header
// naming at least validationColumns in any order (indirect_ms optional),
// then one row per program, stack and cache variant, times in ms per run.
// name is the file's name for errors, which give its line and column. It
// returns an error wrapping ErrValidationRows for a missing column, a
// cache other than on or defeat, or a number that does not parse.
func ReadValidationRows(r io.Reader, name string) ([]ValidationRow, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: no header line: %v", ErrValidationRows, name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range validationColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%w: %s: the header has no %q column (want %s[,indirect_ms])", ErrValidationRows, name, c, strings.Join(validationColumns, ","))
		}
	}
	var rows []ValidationRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrValidationRows, name, err)
		}
		line, _ := cr.FieldPos(0)
		row, err := validationRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrValidationRows, name, line, err)
		}
		rows = append(rows, row)
	}
}

// validationRow parses one record of the table whose columns col names.
func validationRow(rec []string, col map[string]int) (ValidationRow, error) {
	num := func(c string) (float64, error) {
		i, ok := col[c]
		if !ok {
			return 0, nil // optional column
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		if err != nil {
			return 0, fmt.Errorf("column %s (%d): %q is not a number", c, i+1, rec[i])
		}
		return v, nil
	}
	v := map[string]float64{}
	for _, c := range append(validationColumns[3:], "indirect_ms") {
		x, err := num(c)
		if err != nil {
			return ValidationRow{}, err
		}
		v[c] = x
	}
	cache := strings.TrimSpace(rec[col["cache"]])
	if cache != "on" && cache != "defeat" {
		return ValidationRow{}, fmt.Errorf("column cache: %q is not on or defeat", cache)
	}
	return ValidationRow{Program: rec[col["program"]], Stack: rec[col["stack"]], Cache: cache,
		Syscalls: v["syscalls_ms"], Process: v["process_ms"], Indirect: v["indirect_ms"],
		Stated:         stats.Estimate{Center: v["predicted_ms"], Lo: v["stated_lo_ms"], Hi: v["stated_hi_ms"]},
		UsedModelError: v["used_model_error"], Measured: v["measured_ms"], MeasuredLo: v["measured_lo_ms"], MeasuredHi: v["measured_hi_ms"]}, nil
}
