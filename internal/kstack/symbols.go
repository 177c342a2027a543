// Package kstack classifies kernel callchains of CPU samples: did the
// sample land in seccomp (the entry, the action cache check, a filter's
// JIT image), elsewhere in the kernel, or in user mode. It is pure: the
// symbol table comes in as /proc/kallsyms text and the samples as values,
// so recorded sample streams replay anywhere (runner/live takes them on
// the running kernel).
package kstack

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Symbol is one /proc/kallsyms line: an address, a type letter and a name,
// with the module in brackets for module and BPF symbols ("[bpf]").
type Symbol struct {
	// Addr is the start address.
	Addr uint64
	// Type is the nm(1) type letter, e.g. 'T' or 't' for text.
	Type byte
	// Name is the symbol's name.
	Name string
	// Module is the module name without brackets, "" for the core kernel
	// image; "bpf" for JIT-compiled eBPF programs that have kallsyms
	// entries (kernel/bpf/core.c: bpf_prog_kallsyms_add).
	Module string
}

// Symbols is a kernel symbol table sorted by address, with the bounds of
// the core kernel's text.
type Symbols struct {
	syms []Symbol
	// TextStart and TextEnd bound the core kernel's text, _stext (or
	// _text) to _etext, in bytes of address space.
	TextStart, TextEnd uint64
}

// ErrHiddenAddresses is returned by ParseKallsyms when every address reads
// 0: the kernel hides them from this reader (kernel.kptr_restrict, no
// CAP_SYSLOG; kernel/kallsyms.c: kallsyms_show_value).
var ErrHiddenAddresses = errors.New("kallsyms addresses are hidden")

// ErrNoText is returned by ParseKallsyms when the table lacks _stext/_text
// or _etext.
var ErrNoText = errors.New("kallsyms has no _stext/_etext")

// ParseKallsyms parses /proc/kallsyms text ("ffffffff81000000 T _text",
// "ffffffffc0a01000 t foo\t[mod]"). Only text symbols (types t, T, w, W)
// are kept; data symbols cannot be on a callchain. Errors name the line;
// ErrHiddenAddresses when all addresses are 0, ErrNoText when the text
// bounds are missing.
func ParseKallsyms(text []byte) (*Symbols, error) {
	s := &Symbols{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line, nonzero := 0, false
	var stext, text0, etext uint64
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil || len(f[1]) != 1 {
			return nil, fmt.Errorf("kallsyms line %d: %q is not \"ADDR TYPE NAME\"", line, sc.Text())
		}
		if addr != 0 {
			nonzero = true
		}
		name := f[2]
		switch name {
		case "_stext":
			stext = addr
		case "_text":
			text0 = addr
		case "_etext":
			etext = addr
		}
		switch f[1][0] {
		case 't', 'T', 'w', 'W':
		default:
			continue
		}
		sym := Symbol{Addr: addr, Type: f[1][0], Name: name}
		if len(f) >= 4 {
			sym.Module = strings.Trim(f[3], "[]")
		}
		s.syms = append(s.syms, sym)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kallsyms line %d: %w", line+1, err)
	}
	if !nonzero {
		return nil, fmt.Errorf("parse kallsyms: %w", ErrHiddenAddresses)
	}
	if stext == 0 {
		stext = text0
	}
	if stext == 0 || etext <= stext {
		return nil, fmt.Errorf("parse kallsyms: %w", ErrNoText)
	}
	s.TextStart, s.TextEnd = stext, etext
	sort.SliceStable(s.syms, func(i, j int) bool { return s.syms[i].Addr < s.syms[j].Addr })
	return s, nil
}

// Len returns the number of text symbols.
func (s *Symbols) Len() int { return len(s.syms) }

// InCoreText reports whether addr lies in the core kernel's text.
func (s *Symbols) InCoreText(addr uint64) bool {
	return addr >= s.TextStart && addr < s.TextEnd
}

// Lookup returns the symbol whose range holds addr: the last symbol that
// starts at or below addr, within the core text when addr is in it. It
// returns false for an address below every symbol, and for an address
// outside the core text whose nearest symbol below is in the core text
// (nothing the table names is there). kallsyms gives no sizes, so an
// address past a module's last function but below the next module's first
// reads as that last function: callers that must tell JIT images from
// module code use InCoreText and the symbol's Module.
func (s *Symbols) Lookup(addr uint64) (Symbol, bool) {
	i := sort.Search(len(s.syms), func(i int) bool { return s.syms[i].Addr > addr }) - 1
	if i < 0 {
		return Symbol{}, false
	}
	sym := s.syms[i]
	if !s.InCoreText(addr) && sym.Module == "" {
		return Symbol{}, false
	}
	return sym, true
}

// Subset returns the kallsyms text of the symbols that name some address
// of addrs, plus the core text bounds and each named symbol's successor
// (so that lookups of those addresses give the same answer on the
// subset): the part of a symbol table a recorded sample stream needs.
func (s *Symbols) Subset(addrs []uint64) []byte {
	keep := map[int]bool{}
	for _, a := range addrs {
		i := sort.Search(len(s.syms), func(i int) bool { return s.syms[i].Addr > a }) - 1
		if i >= 0 {
			keep[i] = true
			if i+1 < len(s.syms) {
				keep[i+1] = true
			}
		} else if len(s.syms) > 0 {
			keep[0] = true
		}
	}
	idx := make([]int, 0, len(keep))
	for i := range keep {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%016x T _stext\n%016x T _etext\n", s.TextStart, s.TextEnd)
	for _, i := range idx {
		sym := s.syms[i]
		fmt.Fprintf(&b, "%016x %c %s", sym.Addr, sym.Type, sym.Name)
		if sym.Module != "" {
			fmt.Fprintf(&b, "\t[%s]", sym.Module)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
