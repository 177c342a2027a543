package simulate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseArgs parses --args: "a0,a1,..." (decimal or 0x hex, at most 6).
func ParseArgs(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 6 {
		return nil, fmt.Errorf("%d arguments, a syscall has at most 6", len(parts))
	}
	out := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("argument %d: %q does not fit in 64 bits", i, p)
		}
		if err != nil {
			// Allow negative values as callers write them (-1 for AT_FDCWD-like args).
			n, nerr := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if nerr != nil {
				return nil, fmt.Errorf("argument %d: %q is not a number (decimal, 0x hex or negative; names such as BLKDISCARD are not read: give the value, e.g. 0x1277)", i, p)
			}
			v = uint64(n)
		}
		out[i] = v
	}
	return out, nil
}
