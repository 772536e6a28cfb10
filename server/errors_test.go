package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seed-e7d2830f/promptkit/manager"
)

// A template problem is never a 500: every kind of the manager's but
// "closed" (the host closed it) has its 4xx status.
func TestEveryManagerKindHasAStatus(t *testing.T) {
	for _, err := range []error{manager.ErrTemplate, manager.ErrUnknownTemplate, manager.ErrMissingVariables,
		manager.ErrExtraVariables, manager.ErrUndeclaredVariable, manager.ErrIndex, manager.ErrSandbox,
		manager.ErrUnsupported, manager.ErrOutputLimit, manager.ErrChatTemplate, manager.ErrVariableFunc,
		manager.ErrRaised, manager.ErrInvalidVariables, manager.ErrSchema, manager.ErrCanceled} {
		kind := manager.ErrorKind(err)
		code := status(kind)
		assert.True(t, code >= 400 && code < 500, "%s: %d", kind, code)
	}
	assert.Equal(t, http.StatusServiceUnavailable, status(manager.ErrorKind(manager.ErrClosed)))
}

func TestCapText(t *testing.T) {
	assert.Equal(t, "short", capText("short"))
	s := strings.Repeat("é", MaxQuoteBytes) // two bytes each: the cut falls inside none
	got := capText(s)
	assert.True(t, strings.HasPrefix(got, strings.Repeat("é", MaxQuoteBytes/2)+"… ["))
	assert.Equal(t, fmt.Sprintf("… [%d more bytes cut]", len(s)-MaxQuoteBytes), strings.TrimPrefix(got, strings.Repeat("é", MaxQuoteBytes/2)))
	s = "a" + strings.Repeat("é", MaxQuoteBytes)
	assert.True(t, strings.HasPrefix(capText(s), "a"+strings.Repeat("é", MaxQuoteBytes/2-1)+"… ["), "never half a character")
}
