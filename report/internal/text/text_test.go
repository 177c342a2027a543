package text

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		ns   float64
		want string
	}{{812, "812 ns"}, {12345, "12.3 µs"}, {150.24e6, "150 ms"}, {2.0414e9, "2.04 s"}, {-1500, "-1.50 µs"}}
	for _, tt := range tests {
		if got := Duration(tt.ns); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

// TestEstimateNumberFormats: a value and its CI bounds share unit and
// decimals, an absolute error has no sign, counts of one are singular.
func TestEstimateNumberFormats(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name, got, want string
	}{
		{"ms with CI", Est(26.05e6, f(24.6e6), f(27.49e6), NsFormatter(26.05e6)), "26.05 ms [24.60 ms, 27.49 ms]"},
		{"µs with CI", Est(25.96e3, f(24.99e3), f(26.9e3), NsFormatter(25.96e3)), "25.96 µs [24.99 µs, 26.90 µs]"},
		{"bound in a larger unit", Est(950e3, f(900e3), f(1.05e6), NsFormatter(950e3)), "950.0 µs [900.0 µs, 1050.0 µs]"},
		{"ns", Ns(35.5), "35.5 ns"},
		{"zero", Ns(0), "0 ns"},
		{"seconds", Ns(2.5e9), "2.50 s"},
		{"percent with CI", Est(0.8, f(0.776), f(0.836), PctFormatter(0.8)), "0.800% [0.776%, 0.836%]"},
		{"negative zero", NsShort(-0.04), "0.0"},
		{"negative zero bound", Est(12, f(-0.2), f(24), NsFormatter(12)), "12.0 ns [-0.2 ns, 24.0 ns]"},
		{"mean |error|", UnsignedPct(f(7.1)), "7.1%"},
		{"signed error", SignedPct(f(7.1)), "+7.1%"},
		{"negative error", SignedPct(f(-26.4)), "-26.4%"},
		{"signed zero", SignedPct(f(-0.01)), "+0.0%"},
		{"one filter", Plural(1, "filter"), "1 filter"},
		{"filters", Plural(int64(32), "filter"), "32 filters"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestCost: a cost's interval reaching below 0 shows from 0 and says
// it is not resolved; one above 0 prints as is.
func TestCost(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		c, lo, hi float64
		want      string
	}{
		{16.2, -0.05, 32.51, "16.2 [0, 32.5] (not resolved from 0: the interval reaches -0.1)"},
		{16.2, 1.5, 32.51, "16.2 [1.5, 32.5]"},
	}
	for _, tt := range tests {
		if got := Cost(tt.c, f(tt.lo), f(tt.hi), NsShort); got != tt.want {
			t.Errorf("Cost(%v, %v, %v) = %q, want %q", tt.c, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// A long policy name is shortened in the middle, but a parenthesized note
// at its end stays whole.
func TestElidePolicyName(t *testing.T) {
	name := "/usr/lib/systemd/system/systemd-logind.service (systemd unit: stack of 29 filters)"
	got := ElidePolicyName(name, 30)
	if !strings.HasSuffix(got, " (systemd unit: stack of 29 filters)") || !strings.Contains(got, "…") || !strings.HasSuffix(strings.TrimSuffix(got, " (systemd unit: stack of 29 filters)"), "systemd-logind.service") {
		t.Errorf("ElidePolicyName = %q", got)
	}
	if got := ElidePolicyName("short.json", 30); got != "short.json" {
		t.Errorf("short name changed: %q", got)
	}
	if got := ElidePolicyName("/a/very/long/path/to/a/policy/file/profile.json", 20); !strings.HasSuffix(got, "profile.json") || len([]rune(got)) > 20 {
		t.Errorf("plain path: %q", got)
	}
}

func TestNumNoNegativeZero(t *testing.T) {
	tests := []struct {
		format string
		x      float64
		want   string
	}{
		{"%+.1f", -0.01, "+0.0"},
		{"%.1f", -0.04, "0.0"},
		{"%.2f", -0.004, "0.00"},
		{"%.2f", -0.005000001, "-0.01"},
		{"%+.1f", -0.06, "-0.1"},
		{"%+.0f", -0.4, "+0"},
		{"%.0f", -0.5, "0"}, // rounds half to even: "-0" without num
		{"%.1f", math.Copysign(0, -1), "0.0"},
		{"%+.1f", 0.04, "+0.0"},
		{"%6.1f", -0.01, "   0.0"},
		{"%f", -1e-9, "0.000000"},
		{"%.3g", -0.0001, "-0.0001"}, // other verbs print as float64
	}
	for _, tt := range tests {
		if got := fmt.Sprintf(tt.format, Num(tt.x)); got != tt.want {
			t.Errorf("Sprintf(%q, Num(%v)) = %q, want %q", tt.format, tt.x, got, tt.want)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 528482304: "528,482,304", -1234: "-1,234"} {
		if got := GroupDigits(n); got != want {
			t.Errorf("GroupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
