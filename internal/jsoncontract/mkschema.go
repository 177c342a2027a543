//go:build ignore

// mkschema writes docs/schema/KIND.schema.json for every kind of JSON
// document, generated from its Go type (jsoncontract.Generate).
// TestSchemasUpToDate fails when a checked-in schema differs from what
// this writes. Usage, from the repository root:
//
//	go run internal/jsoncontract/mkschema.go
package main

import (
	"log"
	"os"
	"slices"

	"github.com/seccompbench/seccompbench/internal/jsoncontract"
	"github.com/seccompbench/seccompbench/report/document"
)

func main() {
	if err := os.MkdirAll(jsoncontract.Dir, 0o755); err != nil {
		log.Fatal(err)
	}
	kinds := slices.Sorted(func(yield func(document.Kind) bool) {
		for k := range jsoncontract.Types {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range kinds {
		b, err := jsoncontract.Generate(k)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(jsoncontract.File(k), b, 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("wrote %s", jsoncontract.File(k))
	}
}
