package kubernetes

import "testing"

// FuzzLoad checks that Load never panics and that whatever it compiles
// is a valid filter named after a profile of the input.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("apiVersion: security-profiles-operator.x-k8s.io/v1beta1\nkind: SeccompProfile\nmetadata: {name: a}\nspec: {defaultAction: SCMP_ACT_LOG}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		progs, _, err := Load("fuzz.yaml", data, Options{})
		if err != nil {
			return
		}
		for _, p := range progs {
			if p.Name == "" || len(p.Insns) == 0 {
				t.Fatalf("program %+v", p)
			}
		}
	})
}
