// Package manpage writes the man pages of a cobra command tree
// reproducibly (`seccompbench man`, docs/man).
package manpage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// WriteTree writes one page (section 1) per available command of root
// into dir, creating it: seccompbench.1, seccompbench-run.1 and so on,
// without cobra's auto-generated tag, date or version. Errors name the
// command whose page failed, wrapped as "write man pages".
func WriteTree(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write man pages: %w", err)
	}
	root.DisableAutoGenTag = true
	if err := writeTree(root, dir); err != nil {
		return fmt.Errorf("write man pages: %w", err)
	}
	return nil
}

// thDate is the date field of a page's .TH line.
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*") "[^"]*"`)

// writeTree writes the page of cmd and of every available subcommand,
// as cobra's doc.GenManTree does, but reproducibly: no date and no
// version (which carries the VCS revision) in the header, so that the
// same code always gives the same pages and docs/man can be checked.
func writeTree(cmd *cobra.Command, dir string) error {
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeTree(c, dir); err != nil {
			return err
		}
	}
	hdr := &doc.GenManHeader{Title: "SECCOMPBENCH", Section: "1", Source: "seccompbench", Manual: "seccompbench manual"}
	var b bytes.Buffer
	if err := doc.GenMan(cmd, hdr, &b); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	page := thDate.ReplaceAll(b.Bytes(), []byte(`$1 ""`))
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
	return os.WriteFile(filepath.Join(dir, name), page, 0o644)
}
