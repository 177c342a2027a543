package cpulock

import (
	"strconv"
	"testing"
	"time"
)

func TestParseCPUStat(t *testing.T) {
	const stat = "cpu  323626 0 161120 49073 514 0 722 0 0 0\n" +
		"cpu0 162628 0 78588 26012 80 0 214 0 0 0\n" +
		"cpu1 160998 5 82531 23061 433 7 507 9 11 0\n" +
		"cpu10 1 1 1 1\n" +
		"intr 1 2 3\n"
	tests := []struct {
		cpu     int
		want    Stat
		wantErr bool
	}{
		{0, Stat{busy: 162628 + 78588 + 214, total: 162628 + 78588 + 214 + 26012 + 80}, false},
		{1, Stat{busy: 160998 + 5 + 82531 + 7 + 507 + 9, total: 160998 + 5 + 82531 + 7 + 507 + 9 + 23061 + 433}, false},
		{10, Stat{busy: 3, total: 4}, false},
		{2, Stat{}, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.cpu), func(t *testing.T) {
			got, err := parseCPUStat([]byte(stat), tt.cpu)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestForeignLoadShare(t *testing.T) {
	tests := []struct {
		name        string
		busy, total uint64
		own         time.Duration
		want        float64
		wantLarge   bool
	}{
		{"all own", 100, 100, time.Second, 0, false},
		{"own exceeds busy (threads on other CPUs)", 50, 100, 2 * time.Second, 0, false},
		{"half taken", 100, 100, 500 * time.Millisecond, 0.5, true},
		{"idle CPU", 0, 100, 0, 0, false},
		{"just under the threshold", 104, 100, time.Second, 0.04, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := foreignLoad([]int{1}, 1, tt.busy, tt.total, tt.own)
			if d := got.Share - tt.want; d > 1e-9 || d < -1e-9 || got.Large() != tt.wantLarge {
				t.Errorf("got share %v large %v, want %v %v", got.Share, got.Large(), tt.want, tt.wantLarge)
			}
		})
	}
}

// AddAll sums an unpinned child's window over its CPUs and counts one
// child; a window whose counters went backwards is dropped.
func TestWatchAddAll(t *testing.T) {
	var w Watch
	// Two CPUs over 100 ticks each (1 s at USER_HZ 100): 150 ticks busy,
	// 1 s of it the child's own: 0.5 s of 2 s taken by others.
	w.AddAll([]int{0, 1}, []Stat{{busy: 0, total: 0}, {busy: 10, total: 10}}, []Stat{{busy: 100, total: 100}, {busy: 60, total: 110}}, time.Second)
	w.AddAll([]int{0, 1}, []Stat{{busy: 5, total: 5}, {}}, []Stat{{busy: 1, total: 9}, {}}, time.Second) // backwards: dropped
	w.AddAll([]int{0, 1}, []Stat{{}}, []Stat{{}, {}}, time.Second)                                       // lengths differ: dropped
	got := w.Result()
	if got == nil || got.Children != 1 || len(got.CPUs) != 2 {
		t.Fatalf("Result() = %+v, want one child on CPUs 0 and 1", got)
	}
	if d := got.Share - 0.25; d > 1e-9 || d < -1e-9 {
		t.Errorf("share %v, want 0.25 (0.5 s of others' time over 2 s of two CPUs)", got.Share)
	}
}
