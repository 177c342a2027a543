package jitmem

import (
	"errors"
	"testing"
)

func TestCharge(t *testing.T) {
	// Hand-checked against kernel/bpf/core.c:
	// pack: round_up(round_up(img,4)+8+16, 64); page: round_up(round_up(img,4)+8+128, 4096).
	tests := []struct {
		name  string
		image int
		a     Allocator
		want  int
	}{
		{"pack empty", 0, AllocPack, 64},             // 0+8+16=24 -> 64
		{"pack fits one chunk", 40, AllocPack, 64},   // 40+24=64 -> 64
		{"pack one byte over", 41, AllocPack, 128},   // 44+24=68 -> 128
		{"pack aligned up first", 37, AllocPack, 64}, // 37->40, +24 = 64
		{"pack 1000", 1000, AllocPack, 1024},         // 1000+24=1024
		{"pack 1001", 1001, AllocPack, 1088},         // 1004+24=1028 -> 1088
		{"page small", 1, AllocPage, 4096},           // 4+136 -> 4096
		{"page edge", 3960, AllocPage, 4096},         // 3960+136=4096
		{"page over", 3961, AllocPage, 8192},         // 3964+136=4100 -> 8192
		{"page large", 10000, AllocPage, 3 * 4096},   // 10000+136=10136 -> 12288
		{"pack large", 100000, AllocPack, 100032},    // 100000+24=100024 -> 100032
		{"page exactly two", 8192 - 136, AllocPage, 8192},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Charge(tt.image, tt.a); got != tt.want {
				t.Errorf("Charge(%d, %v) = %d, want %d", tt.image, tt.a, got, tt.want)
			}
		})
	}
}

func TestImageModel(t *testing.T) {
	m := ImageModel{Fixed: 48, PerInsn: 5}
	tests := []struct {
		name      string
		ebpf      int
		wantImage int
		wantPack  int
		wantPage  int
	}{
		{"allow-all", 5, 73, 128, 4096},         // 48+25=73 -> 76+24=100 -> 128
		{"small", 3, 63, 128, 4096},             // 63 -> 64+24=88 -> 128
		{"one chunk", 0, 48, 128, 4096},         // 48+24=72 -> 128
		{"docker-sized", 450, 2298, 2368, 4096}, // 2300+24=2324 -> 2368
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.ImageBytes(tt.ebpf); got != tt.wantImage {
				t.Errorf("ImageBytes(%d) = %d, want %d", tt.ebpf, got, tt.wantImage)
			}
			if got := m.FilterCharge(tt.ebpf, AllocPack); got != tt.wantPack {
				t.Errorf("FilterCharge(%d, pack) = %d, want %d", tt.ebpf, got, tt.wantPack)
			}
			if got := m.FilterCharge(tt.ebpf, AllocPage); got != tt.wantPage {
				t.Errorf("FilterCharge(%d, page) = %d, want %d", tt.ebpf, got, tt.wantPage)
			}
		})
	}
	if got, want := m.StackCharge([]int{5, 450, 5}, AllocPack), 128+2368+128; got != want {
		t.Errorf("StackCharge = %d, want %d", got, want)
	}
	if got, want := m.StackCharge([]int{5, 450, 5}, AllocPage), 3*4096; got != want {
		t.Errorf("StackCharge page = %d, want %d", got, want)
	}
}

// Two regimes: SmallPerInsn up to SmallInsns, PerInsn beyond.
func TestImageModelKnee(t *testing.T) {
	m := ImageModel{Fixed: 48, SmallInsns: 10, SmallPerInsn: 2, PerInsn: 5}
	tests := []struct {
		ebpf, wantImage, wantPack int
	}{
		{5, 58, 128},      // 48+2*5=58 -> 60+24=84 -> 128
		{10, 68, 128},     // 48+20=68 -> 92 -> 128
		{11, 73, 128},     // 48+20+5=73 -> 76+24=100 -> 128
		{450, 2268, 2304}, // 48+20+5*440=2268 -> 2292 -> 2304
	}
	for _, tt := range tests {
		if got := m.ImageBytes(tt.ebpf); got != tt.wantImage {
			t.Errorf("ImageBytes(%d) = %d, want %d", tt.ebpf, got, tt.wantImage)
		}
		if got := m.FilterCharge(tt.ebpf, AllocPack); got != tt.wantPack {
			t.Errorf("FilterCharge(%d) = %d, want %d", tt.ebpf, got, tt.wantPack)
		}
	}
}

func TestAllocatorFor(t *testing.T) {
	tests := []struct {
		rel, arch string
		want      Allocator
		ok        bool
	}{
		{"6.18.0", "amd64", AllocPack, true},
		{"5.18.0-1-amd64", "amd64", AllocPack, true},
		{"5.17.15", "amd64", AllocPage, true},
		{"5.10.0-28-cloud-amd64", "amd64", AllocPage, true},
		{"6.1.0", "arm64", AllocPage, true},
		{"garbage", "amd64", AllocPage, false},
		{"6.x", "amd64", AllocPage, false},
	}
	for _, tt := range tests {
		t.Run(tt.rel+"/"+tt.arch, func(t *testing.T) {
			got, ok := AllocatorFor(tt.rel, tt.arch)
			if got != tt.want || ok != tt.ok {
				t.Errorf("AllocatorFor(%q, %q) = %v, %v; want %v, %v", tt.rel, tt.arch, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBudgetFit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name      string
		b         Budget
		want      int64
		wantFirst int64
		wantErr   error
	}{
		// (528482304 - 1048576) / 2368 = 527433728/2368 = 222733.8 -> 222733
		{"default limit docker-sized", Budget{Limit: 528482304, Current: mib, StackBytes: 2368}, 222733, 222734, nil},
		// exact fit: 10 stacks of 640 in 6400 bytes of headroom all succeed (sum == limit is allowed)
		{"exact", Budget{Limit: 10000, Current: 3600, StackBytes: 640}, 10, 11, nil},
		{"one byte short", Budget{Limit: 9999, Current: 3600, StackBytes: 640}, 9, 10, nil},
		{"less than one stack", Budget{Limit: 4000, Current: 3600, StackBytes: 640}, 0, 1, nil},
		{"over", Budget{Limit: 3600, Current: 3600, StackBytes: 64}, 0, 0, ErrNoRoom},
		{"bad stack", Budget{Limit: 3600, Current: 0, StackBytes: 0}, 0, 0, ErrBadBudget},
		{"bad current", Budget{Limit: 3600, Current: -1, StackBytes: 64}, 0, 0, ErrBadBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.b.Fit()
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Fatalf("Fit() = %d, %v; want %d, %v", got, err, tt.want, tt.wantErr)
			}
			first, err := tt.b.FirstFailure()
			if !errors.Is(err, tt.wantErr) || first != tt.wantFirst {
				t.Errorf("FirstFailure() = %d, %v; want %d, %v", first, err, tt.wantFirst, tt.wantErr)
			}
		})
	}
}

const vmallocFixture = `0x00000000e99224ec-0x00000000242e5012   20480 irq_init_percpu_irqstack+0xed/0x120 vmap
0x000000000e78dd37-0x000000001c5200ef   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4
0x00000000bd61be4f-0x000000009c5b873e 2101248 bpf_prog_pack_alloc+0x28b/0x3a0 pages=512 vmalloc N0=512
0x0000000011111111-0x0000000022222222    8192 bpf_prog_alloc_no_stats+0x39/0x230 pages=1 vmalloc N0=1
0x0000000011111111-0x0000000022222222    8192 bpf_prog_alloc_no_stats+0x39/0x230 pages=1 vmalloc N0=1
0x0000000011111111-0x0000000022222222   12288 bpf_prog_alloc_no_stats+0x39/0x230 pages=2 vmalloc N0=2
0x0000000011111111-0x0000000022222222   20480 bpf_prog_realloc+0x62/0xf0 pages=4 vmalloc N0=4
0x0000000011111111-0x0000000022222222    8192 bpf_jit_alloc_exec+0x10/0x20 pages=1 vmalloc N0=1
0x0000000011111111-0x0000000022222222 2101248 alloc_new_pack+0x10/0x20 pages=512 vmalloc N0=512
0x0000000000000000-0x0000000000000000    8192 module_alloc+0x10/0x20 pages=1 vmalloc
`

func TestParseVmallocinfo(t *testing.T) {
	got, err := ParseVmallocinfo([]byte(vmallocFixture))
	if err != nil {
		t.Fatal(err)
	}
	want := VmallocBPF{Packs: 2, PackBytes: 2 * 2101248, Images: 1, ImageBytes: 8192, Progs: 4, ProgBytes: 8192 + 8192 + 12288 + 20480}
	if got != want {
		t.Errorf("ParseVmallocinfo = %+v, want %+v", got, want)
	}
	if got, want := got.JITUpperBound(), int64(2*2101248+8192); got != want {
		t.Errorf("JITUpperBound = %d, want %d", got, want)
	}
}

func TestParseVmallocinfoErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"bad size", "a-b x bpf_prog_pack_alloc+0x1/0x2 pages=1\n", "vmallocinfo line 1: size \"x\" of bpf_prog_pack_alloc is not a byte count"},
		{"bad size line 2", "a-b 1 foo\na-b -5 bpf_prog_alloc_no_stats+0x1/0x2\n", "vmallocinfo line 2: size \"-5\" of bpf_prog_alloc_no_stats is not a byte count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVmallocinfo([]byte(tt.text))
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// Non-BPF garbage is skipped, not an error.
	if v, err := ParseVmallocinfo([]byte("junk\n\na b c d\n")); err != nil || v != (VmallocBPF{}) {
		t.Errorf("garbage: %+v, %v", v, err)
	}
}

func TestBudgetPlan(t *testing.T) {
	b := Budget{Limit: 10000, Current: 3600, StackBytes: 640}
	tests := []struct {
		loads int64
		want  Plan
	}{
		{0, Plan{Loads: 0, Charge: 0, Fits: true, HeadroomAfter: 6400}},
		{10, Plan{Loads: 10, Charge: 6400, Fits: true, HeadroomAfter: 0}},
		{11, Plan{Loads: 11, Charge: 7040, Fits: false, HeadroomAfter: -640}},
	}
	for _, tt := range tests {
		got, err := b.Plan(tt.loads)
		if err != nil || got != tt.want {
			t.Errorf("Plan(%d) = %+v, %v; want %+v", tt.loads, got, err, tt.want)
		}
	}
	if _, err := b.Plan(-1); !errors.Is(err, ErrBadBudget) {
		t.Errorf("Plan(-1) err = %v, want ErrBadBudget", err)
	}
}

func TestStackModel(t *testing.T) {
	m := ImageModel{Fixed: 48, SmallInsns: 10, SmallPerInsn: 2, PerInsn: 5}
	per, total, mean := m.StackModel([]int{5, 450}, AllocPack)
	if len(per) != 2 || per[0] != 128 || per[1] != 2304 || total != 2432 || mean != 1216 {
		t.Errorf("StackModel = %v, %d, %v; want [128 2304], 2432, 1216", per, total, mean)
	}
	if per, total, mean := m.StackModel(nil, AllocPack); per != nil || total != 0 || mean != 0 {
		t.Errorf("empty stack: %v, %d, %v", per, total, mean)
	}
}

// The default model reproduces its calibration points within 1.2 %
// (docs/budget.md, Linux 6.18 x86_64, charges measured with probe fills).
func TestDefaultImageModelCalibration(t *testing.T) {
	hardened := []int{14, 18, 20, 64, 76, 30, 39, 41, 20, 24, 32, 75, 79, 81, 43, 47, 49, 13, 19, 15, 19, 21, 13, 17, 19, 18, 20, 22, 14, 18, 20, 16, 25, 31, 307}
	tests := []struct {
		name     string
		ebpf     []int
		measured int
		want     int
	}{
		{"docker-default", []int{1694}, 16320, 16512},
		{"default policy", []int{157}, 1472, 1472},
		{"ret ALLOW", []int{5}, 64, 64},
		{"hardened.service stack", hardened, 11008, 11072},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultImageModel.StackCharge(tt.ebpf, AllocPack)
			if got != tt.want {
				t.Errorf("StackCharge = %d, want %d (measured %d)", got, tt.want, tt.measured)
			}
		})
	}
}
