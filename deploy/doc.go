// Package deploy holds the Kubernetes manifests that run seccompbench on a
// fleet (docs/fleet.md) and the test that decodes them strictly with the
// Kubernetes API types, so a field the API server would reject or drop
// fails here first. It has no Go code of its own.
package deploy
