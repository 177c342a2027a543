package filters

import (
	"strings"
	"testing"
)

// TestSystemdLoader checks the loader model against the order of
// src/core/exec-invoke.c: root units and User= units whose filter lets
// systemd drop CAP_SYS_ADMIN afterwards load privileged; other User= or
// DynamicUser= units, user namespaces and user managers load without it.
func TestSystemdLoader(t *testing.T) {
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
		in       SystemdLoaderInput
		want     bool
		whyWords string
	}{
		{"root, no filter list", SystemdLoaderInput{HasSeccomp: true}, true, "runs as root"},
		{"User=root", SystemdLoaderInput{User: "root", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read")}, true, "runs as root"},
		{"root with PrivateUsers", SystemdLoaderInput{PrivateUsers: "yes", HasSeccomp: true}, false, "user namespace"},
		{"user manager", SystemdLoaderInput{UserManager: true, HasSeccomp: true}, false, "per-user"},
		{"User= allow list with cap syscalls", SystemdLoaderInput{User: "www", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: withCaps}, true, "keep_seccomp_privileges"},
		{"User= allow list without prctl", SystemdLoaderInput{User: "www", HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read", "capget", "capset")}, false, "no_new_privs"},
		{"DynamicUser deny list of capset", SystemdLoaderInput{DynamicUser: true, HasSeccomp: true, FilterSet: true, FilterNames: names("capset")}, false, "DynamicUser=yes"},
		{"DynamicUser deny list without cap syscalls", SystemdLoaderInput{DynamicUser: true, HasSeccomp: true, FilterSet: true, FilterNames: names("reboot")}, true, "keep_seccomp_privileges"},
		{"User= other filters only", SystemdLoaderInput{User: "www", HasSeccomp: true}, true, "keep_seccomp_privileges"},
		{"User= ambient CAP_SYS_ADMIN", SystemdLoaderInput{User: "www", AmbientSysAdmin: true, HasSeccomp: true, FilterSet: true, FilterAllow: true, FilterNames: names("read")}, true, "AmbientCapabilities"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := SystemdLoader(tt.in)
			if got != tt.want || !strings.Contains(why, tt.whyWords) {
				t.Errorf("SystemdLoader = %v, %q; want %v and %q in the reason", got, why, tt.want, tt.whyWords)
			}
		})
	}
}
