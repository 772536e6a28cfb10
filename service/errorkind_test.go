package service_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seed-e7d2830f/promptkit/builders"
	"github.com/seed-e7d2830f/promptkit/manager"
	"github.com/seed-e7d2830f/promptkit/rag"
	"github.com/seed-e7d2830f/promptkit/service"
)

func TestErrorKind(t *testing.T) {
	for err, want := range map[error]string{
		nil: "",
		fmt.Errorf("build: %w", &manager.Error{Kind: manager.ErrMissingVariables}): "missing_variables",
		// A builder's failed render is the manager's kind, not the builder's.
		fmt.Errorf("%w: %w", builders.ErrRender, &manager.Error{Kind: manager.ErrOutputLimit}): "output_limit",
		fmt.Errorf("x: %w", builders.ErrUnknownKey):                                            "unknown_key",
		fmt.Errorf("x: %w", rag.ErrNoEvidence):                                                 "no_evidence",
		fmt.Errorf("x: %w", service.ErrUnknownBuilder):                                         "unknown_builder",
		errors.New("something else"):                                                           "other",
	} {
		assert.Equal(t, want, service.ErrorKind(err), "%v", err)
	}
}

func TestErrorKindsListsEveryKind(t *testing.T) {
	kinds := service.ErrorKinds()
	assert.Equal(t, "other", kinds[len(kinds)-1])
	for _, k := range manager.ErrorKinds() {
		assert.Contains(t, kinds, k)
	}
	for _, k := range []string{"unknown_builder", "unknown_key", "missing_value", "invalid_value", "invalid_kind", "no_evidence"} {
		assert.Contains(t, kinds, k)
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		assert.False(t, seen[k], "%s twice", k)
		seen[k] = true
	}
}
