package kubernetes_test

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters/kubernetes"
)

// With several profiles in a file, one is chosen by name.
func ExampleLoad() {
	src := []byte(`apiVersion: security-profiles-operator.x-k8s.io/v1beta1
kind: SeccompProfile
metadata: {name: web}
spec: {defaultAction: SCMP_ACT_LOG}
---
apiVersion: security-profiles-operator.x-k8s.io/v1beta1
kind: SeccompProfile
metadata: {name: db}
spec: {defaultAction: SCMP_ACT_ALLOW}
`)
	_, _, err := kubernetes.Load("profiles.yaml", src, kubernetes.Options{})
	fmt.Println(err)
	progs, _, err := kubernetes.Load("profiles.yaml", src, kubernetes.Options{Name: "db"})
	fmt.Println(progs[0].Name, err)
	// Output:
	// profiles.yaml: invalid Kubernetes SeccompProfile: the file holds 2 SeccompProfiles (web, db); choose one by name
	// db <nil>
}
