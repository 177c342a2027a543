package formats

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestBuiltinDidYouMean: a misspelt built-in name is a missing file
// whose error suggests the built-in; a path is not second-guessed.
func TestBuiltinDidYouMean(t *testing.T) {
	_, err := Load("docker-defualt", OpenOptions{})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `did you mean the built-in "docker-default"?`) {
		t.Errorf("Load(docker-defualt) = %v, want a missing file suggesting docker-default", err)
	}
	_, err = Load("./docker-defualt", OpenOptions{})
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("Load(./docker-defualt) = %v, want no suggestion for a path", err)
	}
}
