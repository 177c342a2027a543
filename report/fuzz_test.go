package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadJSON: no input panics ReadJSON or ReadFleetEntry; a document
// ReadJSON accepts, written again by the NaN-as-null codec, reads back
// (the codec's two halves agree), and ReadFleetEntry accepts exactly what
// ReadJSON accepts.
func FuzzReadJSON(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "docs", "examples", "minimal.json")); err == nil {
		f.Add(b)
	} else {
		f.Fatal(err)
	}
	f.Add([]byte(`{"schema_version": 1, "kind": "run", "cells": [{"mean": null, "ci_low": null}]}`))
	f.Add([]byte(`{"schema_version": 1, "kind": "compare"}`))
	f.Add([]byte(`{"schema_version": 0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadJSON(bytes.NewReader(data))
		_, ferr := ReadFleetEntry("fuzz", data)
		if err == nil && ferr != nil {
			t.Fatalf("ReadJSON accepts what ReadFleetEntry refuses: %v", ferr)
		}
		if err != nil {
			if ferr == nil {
				t.Fatalf("ReadFleetEntry accepts what ReadJSON refuses: %v", err)
			}
			return
		}
		again, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("write back: %v", err)
		}
		if _, err := ReadJSON(bytes.NewReader(again)); err != nil {
			t.Fatalf("read back: %v\n%s", err, again)
		}
	})
}
