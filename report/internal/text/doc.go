// Package text holds report's small text helpers: wrapping and eliding
// (Wrap, ElideMiddle), plurals and lists (Plural, JoinInts, IndexRanges),
// and the number formats every renderer shares (Num, Figure, Ns, CI,
// GroupDigits). It knows nothing of documents or commands.
package text
