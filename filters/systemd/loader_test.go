package systemd

import (
	"strings"
	"testing"
)

// TestLoader checks the loader model against the order of
// src/core/exec-invoke.c: root units and User= units whose filter lets
// systemd drop CAP_SYS_ADMIN afterwards load privileged; other User= or
// DynamicUser= units, user namespaces and user managers load without it.
func TestLoader(t *testing.T) {
	names := func(ns ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range ns {
			m[n] = true
		}
		return m
	}
	withCaps := names("read", "write", "capget", "capset", "prctl")
	tests := []struct {
		name     string
		in       LoaderInput
		want     bool
		whyWords string
	}{
		{"root, no filter list", LoaderInput{HasSeccomp: true}, true, "runs as root"},
		{"User=root", LoaderInput{User: "root", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read")}, true, "runs as root"},
		{"root with PrivateUsers", LoaderInput{PrivateUsers: "yes", HasSeccomp: true}, false, "user namespace"},
		{"user manager", LoaderInput{UserManager: true, HasSeccomp: true}, false, "per-user"},
		{"User= allow list with cap syscalls", LoaderInput{User: "www", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: withCaps}, true, "keep_seccomp_privileges"},
		{"User= allow list without prctl", LoaderInput{User: "www", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read", "capget", "capset")}, false, "no_new_privs"},
		{"DynamicUser deny list of capset", LoaderInput{DynamicUser: true, HasSeccomp: true, FilterSet: true, FilterNames: names("capset")}, false, "DynamicUser=yes"},
		{"DynamicUser deny list without cap syscalls", LoaderInput{DynamicUser: true, HasSeccomp: true, FilterSet: true, FilterNames: names("reboot")}, true, "keep_seccomp_privileges"},
		{"User= other filters only", LoaderInput{User: "www", HasSeccomp: true}, true, "keep_seccomp_privileges"},
		{"User= ambient CAP_SYS_ADMIN", LoaderInput{User: "www", AmbientSysAdmin: true, HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read")}, true, "AmbientCapabilities"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Loader(tt.in)
			if got != tt.want || !strings.Contains(why, tt.whyWords) {
				t.Errorf("SystemdLoader = %v, %q; want %v and %q in the reason", got, why, tt.want, tt.whyWords)
			}
		})
	}
}

// TestParseUnitLoader: the parsed unit's User=, DynamicUser=,
// PrivateUsers=, AmbientCapabilities= and SystemCallFilter= reach the
// loader model.
func TestParseUnitLoader(t *testing.T) {
	tests := []struct {
		name string
		unit string
		want bool
	}{
		{"root service", "[Service]\nSystemCallFilter=@system-service\n", true},
		{"User= with @system-service (has capget, capset, prctl)", "[Service]\nUser=www\nSystemCallFilter=@system-service\n", true},
		{"User= with a tight allow list", "[Service]\nUser=www\nSystemCallFilter=read write\n", false},
		{"DynamicUser= denying @privileged", "[Service]\nDynamicUser=yes\nSystemCallFilter=~@privileged\n", false},
		{"User= and ambient CAP_SYS_ADMIN", "[Service]\nUser=www\nAmbientCapabilities=CAP_SYS_ADMIN\nSystemCallFilter=read write\n", true},
		{"root in a user namespace", "[Service]\nPrivateUsers=yes\nSystemCallFilter=@system-service\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseUnit("x.service", []byte(tt.unit), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Privileged != tt.want || st.LoaderReason == "" {
				t.Errorf("Privileged = %v (%s), want %v", st.Privileged, st.LoaderReason, tt.want)
			}
		})
	}
}
